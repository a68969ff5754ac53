#!/usr/bin/env bash
# A real single-node Slurm run of docs/cluster.md (make slurm-test).
#
# As root on Debian 12: installs slurm-wlm and munge when missing, writes a
# munge key and a slurm.conf naming this host (`hostname -s`) in a scratch
# folder, starts munged, slurmctld and slurmd by hand (no systemd, private
# ports and sockets), submits the documented job arrays and dependent
# merges (the sbatch scripts are extracted from docs/cluster.md), waits,
# compares the merged outputs with one-shot runs (median: the same bytes;
# average: within float rounding), and stops the daemons it started.
#
# STACK and MAKE_SCENE name the binaries (default: the debug build).
# FRAMES (default 24) and SIZE (default 320x240) size the burst.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
STACK=${STACK:-$repo/.build/debug/stack}
MAKE_SCENE=${MAKE_SCENE:-$repo/.build/debug/make-scene}
FRAMES=${FRAMES:-24}
SIZE=${SIZE:-320x240}
TIMEOUT=${TIMEOUT:-600}

[ "$(id -u)" = 0 ] || { echo "slurm-cluster.sh: run as root (it installs and starts Slurm and munge)" >&2; exit 1; }
for b in "$STACK" "$MAKE_SCENE"; do [ -x "$b" ] || { echo "slurm-cluster.sh: $b is not built" >&2; exit 1; }; done
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
    echo "slurm-cluster.sh: installing slurm-wlm and munge"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends slurm-wlm munge
fi

work=$(mktemp -d /tmp/stack-slurm.XXXXXX)
pids=()
stop() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}
# On failure the folder stays, with the daemons' logs, for a look.
fail() {
    echo "slurm-cluster.sh: FAILED: $*" >&2
    for log in "$work"/*.log "$work"/run/*.log; do
        [ -f "$log" ] && { echo "--- $log"; tail -n 20 "$log"; } >&2
    done
    exit 1
}
trap stop EXIT

host=$(hostname -s)
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/run"
chmod 700 "$work/munge"

# munge: a fresh key, its own socket.
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$work/munge/munge.key"
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$work/munge/munge.socket" \
    --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/seed" --log-file="$work/munged.log" \
    2>> "$work/munged-stderr.log" &
pids+=($!)
for _ in $(seq 50); do [ -S "$work/munge/munge.socket" ] && break; sleep 0.2; done
[ -S "$work/munge/munge.socket" ] || fail "munged did not start"

# slurm.conf: this host as controller and only node, its real CPUs and memory.
node=$(slurmd -C | head -n 1)
[[ $node == NodeName=* ]] || fail "slurmd -C gave no node line: $node"
conf=$work/slurm.conf
cat > "$conf" <<CONF
ClusterName=stacktest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$work/munge/munge.socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
$node State=UNKNOWN
PartitionName=stack Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$conf
slurmctld -D -f "$conf" 2>> "$work/slurmctld-stderr.log" &
pids+=($!)
slurmd -D -f "$conf" 2>> "$work/slurmd-stderr.log" &
pids+=($!)
for _ in $(seq 100); do
    state=$(sinfo -h -o %T 2>/dev/null | head -n 1 || true)
    [ "$state" = idle ] && break
    sleep 0.3
done
[ "$state" = idle ] || fail "the node did not come up (state '$state')"
echo "slurm-cluster.sh: single-node Slurm up on $host"

# The burst, and the documented scripts.
run=$work/run
"$MAKE_SCENE" --width "${SIZE%x*}" --height "${SIZE#*x}" --frames "$FRAMES" --format png --output "$run/frames" >/dev/null
(cd "$run" && ls frames/frame_*.png > frames.txt)
awk -v dir="$run" '
    /^```bash file=/ { name = substr($2, 6); out = dir "/" name; printf "" > out; next }
    /^```/ && out { close(out); out = ""; next }
    out { print >> out }
' docs/cluster.md
for f in register.sbatch average-shard.sbatch median-shard.sbatch merge.sbatch submit.sh; do
    [ -s "$run/$f" ] || fail "docs/cluster.md has no $f"
done

# Submit as documented: float outputs, so the average can be compared exactly.
export STACK DEPTH=32f EXT=fits
(cd "$run" && bash submit.sh > jobs.txt) || fail "sbatch refused the jobs"
echo "slurm-cluster.sh: submitted; merge jobs $(tr '\n' ' ' < "$run/jobs.txt")"
deadline=$((SECONDS + TIMEOUT))
while [ -n "$(squeue -h -o %i 2>/dev/null)" ]; do
    [ $SECONDS -lt $deadline ] || fail "jobs still queued after ${TIMEOUT}s: $(squeue -h)"
    if squeue -h -o %r | grep -q DependencyNeverSatisfied; then fail "a shard failed: $(squeue -h)"; fi
    sleep 1
done
for out in average.fits median.fits; do [ -s "$run/$out" ] || fail "the merge wrote no $out"; done

# One-shot runs of the same frames with the same transforms.
mapfile -t frames < <(cd "$run" && cat frames.txt)
transforms=()
for f in "$run"/transforms-*.json; do transforms+=(--transforms "$f"); done
(cd "$run" && "$STACK" -q "${transforms[@]}" --depth 32f -o one-average.fits "${frames[@]}")
(cd "$run" && "$STACK" -q "${transforms[@]}" --depth 32f --mode median -o one-median.fits "${frames[@]}")
cmp "$run/median.fits" "$run/one-median.fits" || fail "the merged median differs from the one-shot median"
python3 - "$run/average.fits" "$run/one-average.fits" <<'PY' || fail "the merged average is not within float rounding"
import struct, sys
def samples(path):
    data = open(path, "rb").read()
    i = 0
    while not data[i:i + 80].startswith(b"END "):
        i += 80
    i = (i + 80 + 2879) // 2880 * 2880
    header = {data[j:j + 8].strip(): data[j + 10:j + 80] for j in range(0, i, 80)}
    n = 1
    for k in (b"NAXIS1", b"NAXIS2", b"NAXIS3"):
        if k in header:
            n *= int(header[k].split(b"/")[0])
    return struct.unpack(">%df" % n, data[i:i + 4 * n])
a, b = samples(sys.argv[1]), samples(sys.argv[2])
assert len(a) == len(b), (len(a), len(b))
largest = max(abs(x - y) for x, y in zip(a, b))
print("slurm-cluster.sh: average: largest |merged - one-shot| = %g over %d samples" % (largest, len(a)))
sys.exit(0 if largest <= 1e-6 else 1)
PY
echo "slurm-cluster.sh: median merged from 4 bands is byte-identical to the one-shot median"
echo "slurm-cluster.sh: OK ($FRAMES frames ${SIZE}, register 4 + average 4 + median 4 tasks + 2 merges)"
# The daemons write their state into the folder as they stop: stop them first.
stop
pids=()
rm -rf "$work"
