#!/usr/bin/env bash
# Run the test suite N times in a row, each time from a fresh clone of the current HEAD, and report every run
# (issue 35: a crash that shows up once in four runs makes a green run a matter of luck).
#
#   tools/stress_suite.sh N [--shared alternate|with|without] [--fresh-venv] [--keep] [-- PYTEST_ARGS...]
#
# Each run clones HEAD into a new temporary folder and runs the README's test command there
# (`python -m pytest`, offscreen) under `python -X faulthandler`, so a crash prints every thread's stack.
#   --shared     where the full replay corpus is: `with` puts a link to this checkout's ../shared beside the
#                clone (the `corpus` tests run), `without` leaves it out (only the in-repo replays), `alternate`
#                (default) starts without and then alternates.
#   --fresh-venv builds the clone's own .venv as the README does (`python3.11 -m venv .venv && pip install -e
#                '.[test]'`, from PyPI); by default the clone runs on this checkout's .venv interpreter, with the
#                clone first on PYTHONPATH so it, not this checkout, is what gets imported (subprocesses too).
#   --keep       keeps the clones (logs are always kept).
#   PYTEST_ARGS  replace the README's plain `pytest` arguments, e.g. `-- -x -q tests/ui` for a subset.
# REPLAYSAGE_TEST_PG_URL is passed through, so the `postgres` tests run when it is set.
# One line per run: exit code, passed/failed/errors, crash yes/no, seconds, log; then a summary. The exit code is
# 0 only when every run passed without a crash.
set -uo pipefail

usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 1 && $1 =~ ^[1-9][0-9]*$ ]] || usage
runs=$1
shift
shared_mode=alternate
fresh_venv=0
keep=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --shared) shared_mode=${2:-}; shift 2 ;;
        --fresh-venv) fresh_venv=1; shift ;;
        --keep) keep=1; shift ;;
        --) shift; break ;;
        *) usage ;;
    esac
done
[[ $shared_mode == alternate || $shared_mode == with || $shared_mode == without ]] || usage
pytest_args=("$@")

repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel) || exit 2
head=$(git -C "$repo" rev-parse HEAD)
shared=$(cd "$repo/.." && realpath -e shared 2>/dev/null || true)
if [[ $shared_mode != without && ! -d $shared/replays ]]; then
    echo "stress_suite: no ../shared/replays beside $repo (use --shared without)" >&2
    exit 2
fi
python=$repo/.venv/bin/python
if [[ $fresh_venv -eq 0 && ! -x $python ]]; then
    echo "stress_suite: $python not found (create the venv, or use --fresh-venv)" >&2
    exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/replaysage-stress.XXXXXX")
logs=$work/logs
mkdir -p "$logs"
export QT_QPA_PLATFORM=offscreen PIP_DISABLE_PIP_VERSION_CHECK=1
echo "stress_suite: $runs run(s) of ${head:0:12}, shared $shared_mode, logs in $logs"

crashes=0
bad=0
for ((i = 1; i <= runs; i++)); do
    case $shared_mode in
        with) with_shared=1 ;;
        without) with_shared=0 ;;
        *) with_shared=$(((i + 1) % 2)) ;;  # run 1 without, run 2 with, ...
    esac
    parent=$work/run$i
    clone=$parent/replaysage
    mkdir -p "$parent"
    git clone -q --no-hardlinks "$repo" "$clone" && git -C "$clone" checkout -q "$head" || exit 2
    if [[ $with_shared -eq 1 ]]; then ln -s "$shared" "$parent/shared"; fi
    log=$logs/run$i.log
    start=$SECONDS
    (
        cd "$clone" || exit 2
        if [[ $fresh_venv -eq 1 ]]; then
            python3.11 -m venv .venv && .venv/bin/pip install -q -e '.[test]' || exit 3
            .venv/bin/python -X faulthandler -m pytest "${pytest_args[@]}"
        else
            PYTHONPATH=$clone "$python" -X faulthandler -m pytest "${pytest_args[@]}"
        fi
    ) >"$log" 2>&1
    code=$?
    took=$((SECONDS - start))
    summary=$(grep -E '^=*.*[0-9]+ (passed|failed|error|errors|skipped|deselected)\b.* in [0-9.]+s' "$log" | tail -1)
    count() { grep -oE "[0-9]+ $1" <<<"$summary" | head -1 | cut -d' ' -f1; }
    passed=$(count passed)
    failed=$(count failed)
    errors=$(count 'errors?')
    crash=no
    if grep -q 'Fatal Python error' "$log" || [[ $code -ge 128 ]]; then crash=yes; fi
    [[ $crash == yes ]] && crashes=$((crashes + 1))
    [[ $code -ne 0 || $crash == yes ]] && bad=$((bad + 1))
    shared_word=$([[ $with_shared -eq 1 ]] && echo with || echo without)
    printf 'run %d/%d: exit %d, %s passed, %s failed, %s errors, crash %s, shared %s, %ds, %s\n' \
        "$i" "$runs" "$code" "${passed:-0}" "${failed:-0}" "${errors:-0}" "$crash" "$shared_word" "$took" "$log"
    [[ $keep -eq 1 ]] || rm -rf "$clone"
done
echo "summary: $runs run(s), $((runs - bad)) green, $bad not green, $crashes crash(es)"
[[ $bad -eq 0 ]]
