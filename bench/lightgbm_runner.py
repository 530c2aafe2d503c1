"""LightGBM's side of `npm run bench:ml`, used only when a LightGBM 4.6.0 Python package is importable.

Same protocol as bench/ml-runner.ts: the bench's inputs file as the first argument, then one JSON
request per line on stdin ({"task": "<kind>:<name>", "reps": n}) and one JSON answer per line.

The fixture models are not loadable from their JSON dumps, so this trains them again from the same
encoded rows with the fixtures' own parameters (LightGBM is deterministic with these settings) and
reports, in the ready line, the largest difference of its raw scores from the fixtures' expected
ones: a check that the models timed here are the fixtures' models.
"""

import json
import sys
import time

import lightgbm as lgb
import numpy as np

inputs = json.load(open(sys.argv[1], encoding="utf-8"))


def matrix(data):
    return np.array([[np.nan if v is None else v for v in column] for column in data["columns"]], dtype=np.float64).T


def lgb_params(params):
    out = {
        "objective": "binary",
        "boosting": "gbdt",
        "num_leaves": params["numLeaves"],
        "learning_rate": params["learningRate"],
        "min_data_in_leaf": params["minDataInLeaf"],
        "max_depth": params.get("maxDepth", -1),
        "num_threads": 1,
        "deterministic": True,
        "force_row_wise": True,
        "seed": 42,
        "verbose": -1,
    }
    return out, params["numTrees"]


def train(x, data, params, weighted):
    categorical = [i for i, c in enumerate(data["categorical"]) if c]
    dataset = lgb.Dataset(
        x,
        np.array(data["labels"], dtype=np.float64),
        weight=np.array(data["weights"], dtype=np.float64) if weighted and data.get("weights") else None,
        feature_name=data["featureNames"],
        categorical_feature=categorical,
        free_raw_data=False,
    )
    p, rounds = lgb_params(params)
    return lgb.train(p, dataset, num_boost_round=rounds)


datasets = {name: {**d, "x": matrix(d["train"]), "test_x": matrix(d["test"])} for name, d in inputs["datasets"].items()}
user = {**inputs["user"], "x": matrix(inputs["user"]["data"])}


def train_ai(name):
    d = datasets[name]
    return train(d["x"], d["train"], d["params"], False)


def train_user(weighted):
    return train(user["x"], user["data"], user["params"], weighted)


# The fixture models: each AI model from its dataset's training split, the user model from its 200 unweighted rows.
boosters = {}
fixture_rows = {}
worst = 0.0
for name, fixture in inputs["fixtures"].items():
    dataset, kind = name.split("/")
    booster = train_ai(dataset) if kind == "ai_model" else train_user(False)
    rows = np.array([[np.nan if v is None else v for v in row] for row in fixture["rows"]], dtype=np.float64)
    raw = booster.predict(rows, raw_score=True, num_threads=1)
    worst = max(worst, float(np.max(np.abs(raw - np.array(fixture["expectedRaw"])))))
    boosters[name] = booster
    fixture_rows[name] = rows


def run(task, reps):
    kind, _, name = task.partition(":")
    started = time.perf_counter()
    if kind in ("predict", "shap"):
        booster, rows = boosters[name], fixture_rows[name]
        # Whole passes over the fixture rows in one call each, as LightGBM is meant to be used.
        passes = max(1, round(reps / len(rows)))
        for _ in range(passes):
            booster.predict(rows, raw_score=kind == "predict", pred_contrib=kind == "shap", num_threads=1)
        return {"ms": (time.perf_counter() - started) * 1000 * reps / (passes * len(rows))}
    if kind == "train-ai":
        for _ in range(reps):
            train_ai(name)
    elif kind == "train-user":
        for _ in range(reps):
            train_user(True)
    elif kind == "accuracy":
        d = datasets[name]
        booster = train_ai(name)
        predicted = booster.predict(d["test_x"], num_threads=1) > 0.5
        return {"accuracy": float(np.mean(predicted == np.array(d["test"]["labels"], dtype=bool)))}
    else:
        raise ValueError(f"unknown task {task}")
    return {"ms": (time.perf_counter() - started) * 1000}


print(json.dumps({"ready": True, "version": lgb.__version__, "fixture_raw_score_max_abs_diff": worst}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    try:
        print(json.dumps(run(request["task"], request["reps"])), flush=True)
    except Exception as error:  # noqa: BLE001 - the bench reports it
        print(json.dumps({"error": repr(error)}), flush=True)
