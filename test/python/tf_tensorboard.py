"""Reads directories of TensorBoard event files with TensorBoard's own readers and prints what they find.

  python tf_tensorboard.py LOGDIR [LOGDIR ...]

Two readers, in one process:
- event_accumulator.EventAccumulator (size_guidance scalars 0 = keep all): every scalar tag with its
  (wall_time, step, value) points, the file version it saw, and the tags of other kinds;
- the path the TensorBoard server's scalars dashboard takes: plugin_event_multiplexer +
  MultiplexerDataProvider.list_scalars / read_scalars for plugin "scalars" (simple values are migrated to
  tensors with the scalars plugin's metadata on the way), so a tag shows on the dashboard only if it is here.

Prints one JSON line. Values are float32 (what the files hold), given as floats, or as strings where
JSON has no number for them (NaN, infinities).
"""

import json
import math
import sys

import tensorboard
from tensorboard import context
from tensorboard.backend.event_processing import data_provider, event_accumulator, plugin_event_multiplexer


def number(v):
    return v if math.isfinite(v) else repr(v)


def accumulator_view(logdir):
    acc = event_accumulator.EventAccumulator(logdir, size_guidance={event_accumulator.SCALARS: 0})
    acc.Reload()
    tags = acc.Tags()
    scalars = {tag: [[e.wall_time, e.step, number(e.value)] for e in acc.Scalars(tag)] for tag in tags[event_accumulator.SCALARS]}
    others = {kind: names for kind, names in tags.items() if kind != event_accumulator.SCALARS and names}
    return {"file_version": acc.file_version, "scalars": scalars, "other_tags": others}


def dashboard_view(logdir):
    multiplexer = plugin_event_multiplexer.EventMultiplexer(tensor_size_guidance={"scalars": 0})
    multiplexer.AddRunsFromDirectory(logdir)
    multiplexer.Reload()
    provider = data_provider.MultiplexerDataProvider(multiplexer, logdir)
    ctx = context.RequestContext()
    listed = provider.list_scalars(ctx, experiment_id="", plugin_name="scalars")
    runs = {}
    for run, tags in listed.items():
        points = provider.read_scalars(
            ctx,
            experiment_id="",
            plugin_name="scalars",
            downsample=1 << 30,
            run_tag_filter=data_provider.provider.RunTagFilter(runs=[run], tags=list(tags)),
        )
        runs[run] = {
            tag: {
                "max_step": tags[tag].max_step,
                "points": [[d.wall_time, d.step, number(d.value)] for d in points[run][tag]],
            }
            for tag in tags
        }
    return runs


def main():
    views = {logdir: {"accumulator": accumulator_view(logdir), "dashboard": dashboard_view(logdir)} for logdir in sys.argv[1:]}
    print(json.dumps({"tensorboard": tensorboard.__version__, "logdirs": views}))


if __name__ == "__main__":
    main()
