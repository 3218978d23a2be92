#!/usr/bin/env bash
# Makes the screenshots of docs/screenshots: the timelines of five findings
# of the corpus (a deadlock, a lock cycle, a race, two TSO counterexamples:
# the SB litmus test and 000 §1's STM copy without its MFENCE)
# and the run report of ./corpus/..., each a PNG of the page in headless
# Chromium. Run from anywhere in the repository:
#
#     docs/screenshots/make.sh [outdir]
#
# It needs chromium (or chromium-browser, google-chrome) on PATH. The
# corpus run takes about two minutes on two cores.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
out="${1:-docs/screenshots}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
if [ -z "$browser" ]; then
	echo "make.sh: no chromium, chromium-browser or google-chrome on PATH" >&2
	exit 2
fi
go build -o "$work/xbtest" ./cmd/xbtest

# xbtest exits 1 when it finds something, which is what these runs are for.
xb() { "$work/xbtest" "$@" || [ $? -eq 1 ]; }

shot() { # shot PAGE PNG WIDTH HEIGHT
	"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/profile" \
		--window-size="$3,$4" --screenshot="$2" "file://$1" 2>/dev/null
	echo "wrote $2"
}

timeline() { # timeline NAME WIDTH HEIGHT XBTEST-ARGS...: the first finding's timeline
	local name="$1" w="$2" h="$3"
	shift 3
	xb -o "$work/$name" "$@" >/dev/null
	local file
	file="$(ls "$work/$name"/*.1.json | head -1)"
	xb -replay "$file" -trace "$work/$name.html" >/dev/null
	shot "$work/$name.html" "$out/timeline-$name.png" "$w" "$h"
}

timeline deadlock 1300 560 -run '^TestDeadlockWait$' ./corpus/thesis/deadlockwait
timeline lock-cycle 1300 560 -run '^TestDeadlock$' ./corpus/thesis/deadlock
timeline race 1300 800 -run '^TestNoEraser$' ./corpus/thesis/noeraser
timeline tso 1300 1350 -memory tso -race off -run '^TestSBAssumingSC$' ./corpus/litmus
timeline sapphire-tso 1300 2900 -memory tso -stop -run '^TestSTMNoFenceOneWord$' ./corpus/gc/sapphirecopy

xb -html "$work/report.html" -o "$work/corpus" ./corpus/... >/dev/null
shot "$work/report.html" "$out/run-report.png" 1300 1250
