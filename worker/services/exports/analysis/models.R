# The mixed models a paper reports for the alpha effect, from the all-data export's trials.csv.
#
#   Rscript analysis/models.R            # from the unpacked zip
#   Rscript analysis/models.R path/to/unpacked-export
#
# Needs lme4 (CRAN, or Debian's r-cran-lme4). For each condition that spread several alphas over
# its participants' cases: a logistic mixed model of agreement with the AI (final = AI) on alpha,
# with random intercepts for participant and case, over the trials that showed the human-aligned
# explanation; and the same for switching to the AI, over the trials whose initial judgement
# differed from the AI. Participants the dashboard leaves out by default (synthetic participants,
# bypassed starts: set_aside = 1) are left out here too. analysis/reproduce.py gives the same
# outcomes with participant-clustered standard errors instead (statsmodels), as the dashboard does.
suppressPackageStartupMessages(library(lme4))

args <- commandArgs(trailingOnly = TRUE)
here <- if (length(args) > 0) args[1] else {
  file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  if (length(file_arg) > 0) dirname(dirname(normalizePath(sub("^--file=", "", file_arg)))) else "."
}
trials <- read.csv(file.path(here, "trials.csv"), stringsAsFactors = FALSE)
trials <- subset(trials, set_aside == 0 & shown_kind == "human_aligned" & !is.na(alpha))
trials$participant <- factor(trials$user_id)
trials$case <- factor(trials$case_id)

for (cond in unique(trials$condition)) {
  own <- trials[trials$condition == cond, ]
  if (length(unique(own$alpha)) < 2) next
  cat("\n== Condition", cond, "==\n")
  agreement <- subset(own, !is.na(agree))
  cat("\nAgreement with the AI ~ alpha:", nrow(agreement), "trials,", length(unique(agreement$participant)), "participants\n")
  print(summary(glmer(agree ~ alpha + (1 | participant) + (1 | case), data = agreement, family = binomial)))
  switching <- subset(own, !is.na(switch))
  if (nrow(switching) > 0 && length(unique(switching$switch)) > 1) {
    cat("\nSwitching to the AI ~ alpha (initial differed from the AI):", nrow(switching), "trials,", length(unique(switching$participant)), "participants\n")
    print(summary(glmer(switch ~ alpha + (1 | participant) + (1 | case), data = switching, family = binomial)))
  }
}
