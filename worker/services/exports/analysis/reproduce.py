#!/usr/bin/env python3
"""Recompute every research figure of the XAI Decision Lab dashboard from an all-data export.

Run it from the unpacked zip (it reads trials.csv, participants.csv and study-config.json beside
its own folder), or give the folder or the zip itself:

    python3 analysis/reproduce.py                    # the export this script came in
    python3 analysis/reproduce.py all-data_....zip   # or a folder
    python3 analysis/reproduce.py --json             # the figures as JSON, shaped like the API

Options: --include-synthetic counts synthetic participants and bypassed sessions (left out by
default, as on the dashboard); --completed-only counts only participants who finished the study
(by default everyone with trials counts, finished or not); --exclude-flagged leaves participants
with a data-quality flag out of the group figures. Needs pandas and statsmodels (Debian:
python3-pandas python3-statsmodels).

Every measure is defined in the codebook (codebook.csv) with its formula and source; this script
computes each one per participant first, from the trial table's own columns, then the mean over
participants with a 95% percentile bootstrap interval drawn from the same seeded mulberry32 streams
as the platform (each group its own), so the intervals match the dashboard's to the last digit.
The alpha effect is statsmodels' logistic regression with participant-clustered standard errors,
tested against Student's t with participants - 1 degrees of freedom (use_t=True).
"""
import argparse
import io
import json
import math
import os
import sys
import zipfile

import numpy as np
import pandas as pd

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20190504
FEW_CLUSTERS = 30
KIND_ORDER = ["human_aligned", "ai_explanation", "ai_only", "prediction_only", "no_ai"]

# The per-participant sums every measure is a ratio of (see the codebook's formulas).
SUMS = [
    "trials", "aiTrials", "agreeFinal", "initialTrials", "initialDisagrees", "switchedToAi",
    "initialWrongAiRight", "switchedToRightAi", "initialRightAiWrong", "keptRightInitial",
    "initialCorrect", "finalCorrectWithInitial", "finalCorrect", "confidenceChange",
    "woaTrials", "woaSum", "leanKnown", "leansWithAi", "aiCorrect", "feedbackViewed", "feedbackViewMs",
    "adviceOffered", "adviceRequested", "timeLimited", "timedOut",
]


def ratio(num, den):
    return lambda s: s[num] / s[den] if s[den] > 0 else None


def complement(num, den):
    return lambda s: (s[den] - s[num]) / s[den] if s[den] > 0 else None


# id, the sum counting the trials it is defined on, value
MEASURES = [
    ("agreement", "aiTrials", ratio("agreeFinal", "aiTrials")),
    ("switch", "initialDisagrees", ratio("switchedToAi", "initialDisagrees")),
    ("rair", "initialWrongAiRight", ratio("switchedToRightAi", "initialWrongAiRight")),
    ("rsr", "initialRightAiWrong", ratio("keptRightInitial", "initialRightAiWrong")),
    ("over_reliance", "initialRightAiWrong", complement("keptRightInitial", "initialRightAiWrong")),
    ("under_reliance", "initialWrongAiRight", complement("switchedToRightAi", "initialWrongAiRight")),
    ("weight_of_advice", "woaTrials", ratio("woaSum", "woaTrials")),
    ("initial_accuracy", "initialTrials", ratio("initialCorrect", "initialTrials")),
    ("final_accuracy", "trials", ratio("finalCorrect", "trials")),
    ("accuracy_gain", "initialTrials",
     lambda s: (s["finalCorrectWithInitial"] - s["initialCorrect"]) / s["initialTrials"] if s["initialTrials"] > 0 else None),
    ("confidence_change", "initialTrials", ratio("confidenceChange", "initialTrials")),
    ("ai_accuracy", "aiTrials", ratio("aiCorrect", "aiTrials")),
    ("feedback_viewing_time", "feedbackViewed",
     lambda s: s["feedbackViewMs"] / s["feedbackViewed"] / 1000 if s["feedbackViewed"] > 0 else None),
    ("advice_request_rate", "adviceOffered", ratio("adviceRequested", "adviceOffered")),
    ("timeout_rate", "timeLimited", ratio("timedOut", "timeLimited")),
]


# ---------------------------------------------------------------------------------------------
# The bootstrap: mulberry32 is counter-based (its state after k steps is seed + k * 0x6D2B79F5),
# so the whole stream is drawn at once with 32-bit integer arithmetic, bit for bit the platform's.
# Each group draws its own stream, seeded by BOOTSTRAP_SEED XOR the FNV-1a hash of its name.

def stream_seed(group):
    h = 0x811C9DC5
    for byte in group.encode("utf-8"):
        h = ((h ^ byte) * 0x01000193) & 0xFFFFFFFF
    return (BOOTSTRAP_SEED ^ h) & 0xFFFFFFFF


def uniforms(count, seed):
    k = np.arange(1, count + 1, dtype=np.uint64)
    a = (np.uint64(seed) + k * np.uint64(0x6D2B79F5)) & np.uint64(0xFFFFFFFF)
    mask = np.uint64(0xFFFFFFFF)

    def imul(x, y):
        return (x * y) & mask

    t = imul(a ^ (a >> np.uint64(15)), a | np.uint64(1))
    t = t ^ ((t + imul(t ^ (t >> np.uint64(7)), t | np.uint64(61))) & mask)
    return ((t ^ (t >> np.uint64(14))) & mask).astype(np.float64) / 4294967296.0


def quantile_sorted(x, p):
    h = (len(x) - 1) * p
    lo = math.floor(h)
    hi = min(lo + 1, len(x) - 1)
    return float(x[lo] + (h - lo) * (x[hi] - x[lo]))


def table_of(people):
    """Every participant's value of every measure (NaN where undefined), participants in id order."""
    return np.array([[np.nan if (v := value(p)) is None else v for _, _, value in MEASURES] for p in people], dtype=np.float64).reshape(len(people), len(MEASURES))


def draw(table, u):
    """Per replicate and measure: the sum and count of the drawn participants' defined values (u: replicates × n uniforms)."""
    n, m = table.shape
    idx = np.floor(u * n).astype(np.int64)
    sums = np.zeros((idx.shape[0], m))
    counts = np.zeros((idx.shape[0], m))
    defined = ~np.isnan(table)
    filled = np.where(defined, table, 0.0)
    # A block of replicates at a time keeps memory small for large studies.
    step = max(1, 2_000_000 // max(n, 1))
    for start in range(0, idx.shape[0], step):
        block = idx[start:start + step]
        for k in range(m):
            sums[start:start + step, k] = filled[block, k].sum(axis=1)
            counts[start:start + step, k] = defined[block, k].sum(axis=1)
    return sums, counts


def percentile_interval(replicates):
    kept = np.sort(replicates[~np.isnan(replicates)])
    if len(kept) == 0:
        return None, None
    return quantile_sorted(kept, 0.025), quantile_sorted(kept, 0.975)


def column_means(table):
    out = []
    for k in range(table.shape[1]):
        values = [v for v in table[:, k] if not math.isnan(v)]
        out.append((sum_in_order(values) / len(values) if values else None, len(values)))
    return out


def bootstrap_means(table, group):
    """Each measure's participant mean with the platform's participant-level bootstrap interval, from the group's own stream."""
    means = column_means(table)
    if not any(n >= 2 for _, n in means):
        return [(m, None, None) for m, _ in means]
    n = table.shape[0]
    sums, counts = draw(table, uniforms(BOOTSTRAP_RESAMPLES * n, stream_seed(group)).reshape(BOOTSTRAP_RESAMPLES, n))
    with np.errstate(invalid="ignore", divide="ignore"):
        replicates = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
    out = []
    for k, (mean, count) in enumerate(means):
        out.append((mean, None, None) if count < 2 else (mean, *percentile_interval(replicates[:, k])))
    return out


def bootstrap_differences(a, b, group):
    """Each measure's b − a difference of participant means with the platform's bootstrap interval (the pair's own stream)."""
    ma, mb = column_means(a), column_means(b)
    diff = [None if x is None or y is None else y - x for (x, _), (y, _) in zip(ma, mb)]
    estimable = [na >= 2 and nb >= 2 for (_, na), (_, nb) in zip(ma, mb)]
    if not any(estimable):
        return [(d, None, None) for d in diff]
    na, nb = a.shape[0], b.shape[0]
    u = uniforms(BOOTSTRAP_RESAMPLES * (na + nb), stream_seed(group)).reshape(BOOTSTRAP_RESAMPLES, na + nb)
    sa, ca = draw(a, u[:, :na])
    sb, cb = draw(b, u[:, na:])
    with np.errstate(invalid="ignore", divide="ignore"):
        replicates = np.where((ca > 0) & (cb > 0), sb / np.maximum(cb, 1) - sa / np.maximum(ca, 1), np.nan)
    return [(d, None, None) if not ok else (d, *percentile_interval(replicates[:, k])) for k, (d, ok) in enumerate(zip(diff, estimable))]


def sum_in_order(values):
    s = 0.0
    for v in values:
        s += v
    return s


# ---------------------------------------------------------------------------------------------

def read_export(path):
    """The export's tables: from a zip, or from a folder (the one holding this script's folder by default).
    A CSV export (also its Excel variant, with a byte-order mark) or a TSV one; not the JSON one."""
    in_zip = zipfile.is_zipfile(path)
    names = zipfile.ZipFile(path).namelist() if in_zip else os.listdir(path)

    def reader(name):
        if in_zip:
            with zipfile.ZipFile(path) as z:
                return io.BytesIO(z.read(name))
        return open(os.path.join(path, name), "rb")

    ext, sep = (".csv", ",") if "trials.csv" in names else (".tsv", "\t") if "trials.tsv" in names else (None, None)
    if ext is None:
        sys.exit("No trials.csv or trials.tsv here: run this on an all-data export in CSV, Excel or TSV format.")

    def table(name, dtype):
        with reader(name + ext) as f:
            return pd.read_csv(f, sep=sep, encoding="utf-8-sig", dtype=dtype)

    trials = table("trials", {"user_name": str, "case_id": str, "condition": str, "dataset_type": str, "shown_kind": str, "ai_only_reason": str})
    participants = table("participants", {"user_name": str, "quality_flags": str})
    with reader("study-config.json") as f:
        config = json.load(f)
    return trials, participants, config


def placed(prediction, confidence):
    """A judgement on the probability scale of the positive class: its confidence 1..5 read as 50 % ... 100 % for the class chosen."""
    step = (confidence - 1) * 0.125
    return np.where(prediction == 1, 0.5 + step, 0.5 - step)


def weight_of_advice(t, two):
    """Per trial: Harvey & Fischer's shift toward the advice, truncated to 0..1 (the codebook's weight_of_advice), and where it is defined."""
    qi = placed(t["initial"], t["initial_confidence"])
    qf = placed(t["final"], t["final_confidence"])
    shown = (t["ai_probability_shown"] == 1) & t["ai_probability"].notna()
    qa = np.where(shown, t["ai_probability"], t["ai"] * 1.0)
    defined = two & (qa != qi)
    with np.errstate(invalid="ignore", divide="ignore"):
        woa = np.maximum(0.0, np.minimum(1.0, (qf - qi) / (qa - qi)))
    return defined, np.where(defined, woa, 0.0)


def with_sums(t):
    """The trial table with one 0/1 (or value) column per sum."""
    has_ai = t["ai"].notna()
    has_initial = t["initial"].notna() & t["initial_confidence"].notna()
    two = has_ai & has_initial
    differ = two & (t["initial"] != t["ai"])
    woa_defined, woa = weight_of_advice(t, two)
    ai_right = t["ai"] == t["ground_truth"]
    final_ai = t["final"] == t["ai"]
    s = pd.DataFrame(index=t.index)
    s["trials"] = 1
    s["aiTrials"] = has_ai
    s["agreeFinal"] = has_ai & final_ai
    s["initialTrials"] = has_initial
    s["initialDisagrees"] = differ
    s["switchedToAi"] = differ & final_ai
    s["initialWrongAiRight"] = differ & ai_right
    s["switchedToRightAi"] = differ & ai_right & final_ai
    s["initialRightAiWrong"] = differ & ~ai_right
    s["keptRightInitial"] = differ & ~ai_right & ~final_ai
    s["initialCorrect"] = has_initial & (t["initial"] == t["ground_truth"])
    s["finalCorrectWithInitial"] = has_initial & (t["final"] == t["ground_truth"])
    s["finalCorrect"] = t["final"] == t["ground_truth"]
    s["confidenceChange"] = np.where(has_initial, t["final_confidence"] - t["initial_confidence"].fillna(0), 0)
    s["woaTrials"] = woa_defined
    s["woaSum"] = woa
    s["leanKnown"] = t["bars_lean_with_ai"].notna()
    s["leansWithAi"] = t["bars_lean_with_ai"] == 1
    s["aiCorrect"] = has_ai & ai_right
    viewed = t["feedback_viewing_time_ms"].notna()
    s["feedbackViewed"] = viewed
    s["feedbackViewMs"] = t["feedback_viewing_time_ms"].where(viewed, 0)
    s["adviceOffered"] = t["advice_requested"].notna()
    s["adviceRequested"] = t["advice_requested"] == 1
    limited = t["time_limit_ms"].notna()
    s["timeLimited"] = limited
    s["timedOut"] = limited & ((t["initial_timed_out"] == 1) | (t["final_timed_out"] == 1))
    for c in SUMS:
        s[c] = s[c].astype(np.float64)
    return pd.concat([t, s], axis=1)


def people_of(rows):
    """Each participant's sums, in participant-id order."""
    g = rows.groupby("user_id", sort=True)[SUMS].sum()
    return [dict(zip(SUMS, r)) for r in g.itertuples(index=False, name=None)]


def summarise(rows, group):
    people = people_of(rows)
    pooled = {k: sum(p[k] for p in people) for k in SUMS}
    table = table_of(people)
    metrics = {}
    for k, ((mid, defined_on, value), (mean, low, high)) in enumerate(zip(MEASURES, bootstrap_means(table, group))):
        participants = int((~np.isnan(table[:, k])).sum())
        metrics[mid] = {"mean": mean, "ci_low": low, "ci_high": high, "participants": participants, "trials": pooled[defined_on], "pooled": value(pooled)}
    calibration = []
    for c in range(1, 6):
        at = rows[rows["final_confidence"] == c]
        n = len(at)
        calibration.append({"confidence": c, "trials": n, "accuracy": float(at["finalCorrect"].sum()) / n if n else None})
    return {
        "trials": pooled["trials"],
        "participants": len(people),
        "fallback_trials": int((rows["shown_kind"] == "ai_only").sum()),
        "fallback_reasons": {r: int(n) for r, n in sorted(rows.loc[rows["shown_kind"] == "ai_only", "ai_only_reason"].fillna("unrecorded").value_counts().items())},
        "metrics": metrics,
        "calibration": calibration,
        "bars_lean_with_ai": {"trials": pooled["leanKnown"], "rate": pooled["leansWithAi"] / pooled["leanKnown"] if pooled["leanKnown"] > 0 else None},
    }


def clustered_logit(rows, outcome):
    """statsmodels' Logit of the outcome on alpha, standard errors clustered by participant."""
    import statsmodels.api as sm

    d = rows[["user_id", "alpha", outcome]].dropna()
    base = {"trials": int(len(d)), "participants": int(d["user_id"].nunique())}
    if base["participants"] < 2:
        return {"refused": "too_few_participants", **base}
    if d[outcome].nunique() < 2:
        return {"refused": "no_variation_in_outcome", **base}
    if d["alpha"].nunique() < 2:
        return {"refused": "no_variation_in_covariate", **base}
    try:
        X = sm.add_constant(d["alpha"].astype(float), has_constant="add")
        r = sm.Logit(d[outcome].astype(float), X).fit(disp=0, cov_type="cluster", cov_kwds={"groups": d["user_id"].astype(int)}, use_t=True)
    except Exception:  # perfect separation and the like
        return {"refused": "not_converged", **base}
    low, high = r.conf_int().loc["alpha"]
    return {
        **base,
        "intercept": float(r.params["const"]), "slope": float(r.params["alpha"]),
        "intercept_se": float(r.bse["const"]), "slope_se": float(r.bse["alpha"]),
        "slope_t": float(r.tvalues["alpha"]), "df": int(r.df_resid_inference), "slope_p": float(r.pvalues["alpha"]),
        "slope_ci_low": float(low), "slope_ci_high": float(high), "few_clusters": base["participants"] < FEW_CLUSTERS,
        "odds_ratio": float(math.exp(r.params["alpha"])),
    }


def js_number(x):
    """A number as the platform writes it in keys (1 not 1.0)."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def statistics(t):
    """/api/experiments/statistics' main-experiment figures, overall and per condition."""
    def figures(rows):
        with_both = rows[rows["ai"].notna() & rows["initial"].notna()]
        changes = int((with_both["final"] != with_both["initial"]).sum())
        distribution = {}
        for (kind, alpha), g in rows.groupby([rows["shown_kind"], rows["alpha"].fillna(-1)]):
            key = kind if kind != "human_aligned" else ("none" if alpha == -1 else js_number(alpha))
            distribution[key] = distribution.get(key, 0) + len(g)
        return {
            "total_responses": int(len(rows)), "unique_users": int(rows["user_id"].nunique()),
            "judgment_change_rate": changes / len(with_both) if len(with_both) else None,
            "judgment_change_trials": int(len(with_both)), "judgment_changes": changes,
            "alignment_distribution": distribution,
        }

    return {
        "main_experiment": figures(t),
        "main_by_condition": [{"condition": c, **figures(g)} for c, g in t.groupby("condition", sort=True)],
    }


def reproduce(path, include_synthetic=False, exclude_flagged=False, completed_only=False):
    trials, participants, config = read_export(path)
    t = trials if include_synthetic else trials[trials["set_aside"] == 0]
    t = t[t["completed"] == 1] if completed_only else t
    t = with_sums(t.copy())
    flags = participants.set_index("user_id")["quality_flags"].fillna("")
    flagged = set(flags[flags != ""].index) if exclude_flagged else set()
    counted = t[~t["user_id"].isin(flagged)]

    order = [c["name"] for c in config["study"]["conditions"]]
    rank = lambda name: order.index(name) if name in order else len(order)
    conditions = sorted(counted["condition"].unique(), key=lambda c: (rank(c), c))
    by_alpha = []
    groups = counted.groupby(["condition", "shown_kind", counted["alpha"].fillna(-1)], sort=False)
    for (condition, kind, alpha), rows in sorted(groups, key=lambda g: (rank(g[0][0]), g[0][0], KIND_ORDER.index(g[0][1]), g[0][2])):
        name = f"shown/{condition}/{kind}/{'' if alpha == -1 else js_number(alpha)}"
        by_alpha.append({"condition": condition, "explanation_kind": kind, "alignment_alpha": None if alpha == -1 else float(alpha), **summarise(rows, name)})
    by_condition = [{"condition": c, **summarise(counted[counted["condition"] == c], f"condition/{c}")} for c in conditions]
    by_dataset = [
        {"condition": c, "dataset_type": d, **summarise(rows, f"dataset/{c}/{d}")}
        for (c, d), rows in sorted(counted.groupby(["condition", "dataset_type"]), key=lambda g: (rank(g[0][0]), g[0][0], g[0][1]))
    ]
    differences = []
    tables = {c: table_of(people_of(counted[counted["condition"] == c])) for c in conditions}
    pairs = [(conditions[i], conditions[j]) for i in range(len(conditions)) for j in range(i + 1, len(conditions))]
    by_pair = {pair: bootstrap_differences(tables[pair[0]], tables[pair[1]], f"difference/{pair[0]}/{pair[1]}") for pair in pairs}
    for k, (mid, _, _) in enumerate(MEASURES):
        for ca, cb in pairs:
            na, nb = int((~np.isnan(tables[ca][:, k])).sum()), int((~np.isnan(tables[cb][:, k])).sum())
            if na == 0 or nb == 0:
                continue
            d, low, high = by_pair[(ca, cb)][k]
            differences.append({"metric": mid, "condition_a": ca, "condition_b": cb, "participants_a": na,
                                "participants_b": nb, "difference": d, "ci_low": low, "ci_high": high})
    models = []
    for c in conditions:
        own = counted[(counted["condition"] == c) & (counted["shown_kind"] == "human_aligned") & counted["alpha"].notna()]
        if own["alpha"].nunique() < 2:
            continue
        models.append({"condition": c, "outcome": "agreement", **clustered_logit(own, "agree")})
        models.append({"condition": c, "outcome": "switch", **clustered_logit(own, "switch")})
    overall = None
    if len(conditions) == 1:
        overall = next(({k: v for k, v in g.items() if k != "condition"} for g in by_condition))
    elif not conditions:
        overall = summarise(counted, "overall")
    return {
        "include_synthetic": include_synthetic,
        "exclude_flagged": exclude_flagged,
        "completed_only": completed_only,
        "trials": int(len(counted)),
        "overall": overall,
        "by_alpha": by_alpha,
        "by_condition": by_condition,
        "by_dataset": by_dataset,
        "condition_differences": differences,
        "alpha_models": models,
        "statistics": statistics(t),
    }


def fmt(x):
    return "—" if x is None else f"{x:.3f}"


def print_report(r):
    print(f"Trials counted: {r['trials']}  (synthetic included: {r['include_synthetic']}, flagged excluded: {r['exclude_flagged']}, completers only: {r['completed_only']})")
    for title, key, name in [("By condition and what was shown", "by_alpha", lambda g: f"{g['condition']} · {g['explanation_kind']}" + ("" if g["alignment_alpha"] is None else f" α={js_number(g['alignment_alpha'])}")),
                             ("By condition", "by_condition", lambda g: g["condition"]),
                             ("By condition and dataset", "by_dataset", lambda g: f"{g['condition']} · {g['dataset_type']}")]:
        print(f"\n== {title} (participant mean [95% bootstrap interval], participants / trials) ==")
        for g in r[key]:
            print(f"\n{name(g)}: {g['participants']} participants, {int(g['trials'])} trials, {g['fallback_trials']} AI-only fallback trials")
            for mid, _, _ in MEASURES:
                m = g["metrics"][mid]
                print(f"  {mid:<18} {fmt(m['mean'])} [{fmt(m['ci_low'])}, {fmt(m['ci_high'])}]  n = {m['participants']} / {int(m['trials'])}")
    if r["condition_differences"]:
        print("\n== Differences between conditions (b − a, participant means, 95% bootstrap interval) ==")
        for d in r["condition_differences"]:
            print(f"  {d['metric']:<18} {d['condition_b']} − {d['condition_a']}: {fmt(d['difference'])} [{fmt(d['ci_low'])}, {fmt(d['ci_high'])}]  n = {d['participants_b']} / {d['participants_a']}")
    if r["alpha_models"]:
        print("\n== Alpha effect: logit(outcome) ~ alpha, participant-clustered SEs, t with participants - 1 df ==")
        for m in r["alpha_models"]:
            if "refused" in m:
                print(f"  {m['condition']} · {m['outcome']}: not fitted ({m['refused']})")
            else:
                few = f" (fewer than {FEW_CLUSTERS} participants: read with care)" if m["few_clusters"] else ""
                print(f"  {m['condition']} · {m['outcome']}: slope {m['slope']:.4f} (SE {m['slope_se']:.4f}, t({m['df']}) {m['slope_t']:.3f}, p {m['slope_p']:.4g}), "
                      f"OR {m['odds_ratio']:.3f}; {m['participants']} participants, {m['trials']} trials{few}")
    s = r["statistics"]["main_experiment"]
    print(f"\nJudgement change rate: {fmt(s['judgment_change_rate'])} ({s['judgment_changes']} of {s['judgment_change_trials']} trials with the AI after an initial judgement)")


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("export", nargs="?", default=here, help="the all-data zip or its unpacked folder (default: the one this script is in)")
    p.add_argument("--include-synthetic", action="store_true")
    p.add_argument("--exclude-flagged", action="store_true")
    p.add_argument("--completed-only", action="store_true", help="count only participants who finished the study")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    a = p.parse_args()
    r = reproduce(a.export, a.include_synthetic, a.exclude_flagged, a.completed_only)
    if a.json:
        json.dump(r, sys.stdout, default=float)
        print()
    else:
        print_report(r)


if __name__ == "__main__":
    main()
