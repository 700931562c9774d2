"""scikit-learn's classification metrics for label lists, to hold Kiln's to.

Reads {"y_true": [...], "y_pred": [...], "classes": N} on stdin; prints one JSON line with sklearn's
accuracy_score, f1_score(average="macro") (default labels: those present in y_true or y_pred; the
zero_division default) and confusion_matrix over labels 0..N-1.
"""

import json
import sys
import warnings

from sklearn.metrics import accuracy_score, confusion_matrix, f1_score

job = json.loads(sys.stdin.read())
y_true, y_pred = job["y_true"], job["y_pred"]
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    macro = f1_score(y_true, y_pred, average="macro")
print(
    json.dumps(
        {
            "accuracy": accuracy_score(y_true, y_pred),
            "macro_f1": float(macro),
            "confusion": confusion_matrix(y_true, y_pred, labels=list(range(job["classes"]))).tolist(),
        }
    )
)
