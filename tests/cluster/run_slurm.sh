#!/usr/bin/env bash
# The smoke configuration through a real Slurm cluster (one node on localhost), checked.
#
#   tests/cluster/run_slurm.sh          # as root; .ci/run calls it after the tests
#
# 1. Starts a one-node Slurm cluster with accounting (tests/cluster/slurm_local.sh):
#    installs slurm-wlm, munge, slurmdbd and mariadb-server if missing, starts only the
#    daemons that are not running, and stops exactly those when it exits.
# 2. In a copy of the repository, injects a failure into scripts/audit_privacy.py and
#    runs the whole smoke DAG through profiles/slurm with --keep-going: the run must
#    fail, name the rule and show the job's log with the error.
# 3. Restores the script: a dry run must plan only the failed rule and rules downstream
#    of it; the rerun through Slurm must succeed without redoing finished jobs.
# 4. Compares the SHA-256 of every seeded result (results/smoke/, the results_dir of
#    .test/config.yaml) with a local run: the manifest the
#    test suite wrote ($DPRANK_SMOKE_MANIFEST, set by .ci/run), or, without one, a
#    local smoke run this script makes.
#
# Environment: PYTHON (default .venv/bin/python), DPRANK_DATA_MIRROR (offline data),
# DPRANK_SMOKE_MANIFEST, KEEP=1 (keep the working directory), SLURM_TEST_ACCOUNT.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PY=${PYTHON:-$ROOT/.venv/bin/python}
# shellcheck source=tests/cluster/slurm_local.sh
source "$ROOT/tests/cluster/slurm_local.sh"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/dprank-slurm.XXXXXX")
finish() {
	local rc=$?
	slurm_down
	if [[ $rc == 0 && -z ${KEEP:-} ]]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
	exit "$rc"
}
trap finish EXIT
say() { printf '\n== %s (%d s)\n' "$*" "$SECONDS"; }
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

copy_repo() { # $1 destination: the files a run needs (as tests/test_workflow.py copies them)
	local dest
	dest=$(mkdir -p "$1" && cd "$1" && pwd)
	(cd "$ROOT" && cp -r Snakefile config.yaml .test workflow scripts src resources envs profiles "$dest/")
	rm -rf "$dest/resources/data"
	find "$dest" -name __pycache__ -prune -exec rm -rf {} +
}

say "starting Slurm"
slurm_up

cd "$WORK"
REF=${DPRANK_SMOKE_MANIFEST:-}
if [[ -z $REF || ! -s $REF ]]; then
	say "no manifest from the test suite: local smoke run for reference"
	copy_repo local
	(cd local && "$PY" -m snakemake --cores "$(nproc)" --configfile .test/config.yaml --quiet)
	REF=$WORK/local.json
	"$PY" "$ROOT/tests/cluster/checks.py" manifest local/results/smoke "$REF"
fi

copy_repo slurm
cd slurm
SMK=("$PY" -m snakemake --profile profiles/slurm --configfile .test/config.yaml
	--default-resources "slurm_account=$SLURM_TEST_ACCOUNT" "slurm_partition=$SLURM_TEST_PARTITION"
	# The profile bundles 8 chunk chains per one-CPU allocation (paper scale, many
	# nodes); the smoke DAG's 31 short chains go in two allocations here, one per CPU.
	--group-components chain=16
	--slurm-init-seconds-before-status-checks 2 --seconds-between-status-checks 3
	--latency-wait 10)

say "smoke DAG through Slurm with a failure injected into rule audit_privacy"
MARK="injected failure (tests/cluster/run_slurm.sh)"
cp -p scripts/audit_privacy.py "$WORK/audit_privacy.py.orig"
"$PY" - "$MARK" <<'EOF'
import sys
from pathlib import Path
p = Path("scripts/audit_privacy.py")
text = p.read_text()
anchor = "    table = run_audits("
assert anchor in text, "scripts/audit_privacy.py changed: update the injection"
p.write_text(text.replace(anchor, f"    raise RuntimeError({sys.argv[1]!r})\n" + anchor, 1))
EOF
set +e
"${SMK[@]}" --keep-going >"$WORK/failing.txt" 2>&1
rc=$?
set -e
grep -v '^ *reason:' "$WORK/failing.txt" | tail -n 40 # reasons list hundreds of files
((rc != 0)) || fail "the run with a failing job exited 0"
grep -q "Error in rule audit_privacy" "$WORK/failing.txt" || fail "no 'Error in rule audit_privacy'"
grep -q "$MARK" "$WORK/failing.txt" || fail "the failed job's log is not shown"
submitted=$(grep -c "Job .* has been submitted with SLURM jobid" "$WORK/failing.txt" || true)
((submitted > 0)) || fail "no job was submitted to Slurm"
echo "failed as it must (exit $rc), log shown; $submitted Slurm submissions"

say "fix: restore the script; the plan must hold only the failed rule and its downstream"
cp -p "$WORK/audit_privacy.py.orig" scripts/audit_privacy.py
"${SMK[@]}" -n >"$WORK/plan.txt" 2>&1
"$PY" -m snakemake --configfile .test/config.yaml --forceall --rulegraph >"$WORK/rulegraph.dot" 2>/dev/null
"$PY" "$ROOT/tests/cluster/checks.py" plan "$WORK/plan.txt" "$WORK/rulegraph.dot" audit_privacy

say "rerun through Slurm"
"${SMK[@]}" >"$WORK/rerun.txt" 2>&1 || {
	tail -n 60 "$WORK/rerun.txt"
	fail "the rerun failed"
}
tail -n 3 "$WORK/rerun.txt"
left=$("$PY" -m snakemake --configfile .test/config.yaml -n 2>&1)
grep -q "Nothing to be done" <<<"$left" || fail "jobs left after the rerun: $left"

say "results against the local run"
"$PY" "$ROOT/tests/cluster/checks.py" compare "$REF" results/smoke
say "Slurm smoke test passed"
