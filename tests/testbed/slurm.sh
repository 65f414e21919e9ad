#!/usr/bin/env bash
# Description: gpufeed under Slurm, as a cluster runs it, on a testbed of 4 client hosts
# and 1 server host (scripts/testbed-up.sh --slurm: one munge key and a munged on every
# host, slurmctld on gft-s1, slurmd on gft-c1..c4, one partition). srun starts gpufeed's
# 8 Open MPI ranks on the 4 hosts, without mpirun (scripts/testbed-srun.sh).
# Expected: srun --mpi=pmix starts them: summary.json names the launcher (srun) and the
# Slurm job (its id, which scontrol knows as an 8-task job on gft-c[1-4], the node list
# and 2(x4) tasks per node); the nodes are the 4 hosts with 2 ranks each, and nodes[]
# adds up to the run's reads. --mpi=pmi2 cannot start Debian's Open MPI: every rank fails
# in MPI_Init, gpufeed's note names --mpi=pmix first, and no results folder is made.
# With GPUFEED_LONG_TESTS=1 also: a checkpoint run under srun in which no rank restores a
# shard written on its own host (restore_from against rank_hosts); no --mpi at all
# (Slurm's default, none) fails as pmi2 does; scripts/slurm/gpufeed.sbatch submitted with
# sbatch and waited for: a job whose sweep feeds GF_REQUIRE_FED accelerators exits 0
# (COMPLETED), with its sweep and its checkpoint run in results/slurm-JOBID, each summary
# naming that job; one that requires more than the sweep can feed exits 3 (FAILED,
# ExitCode 3) and still has its checkpoint figures; one whose time limit (1 minute) falls
# in a 5-minute sweep point ends in TIMEOUT, its sweep.partial summary says interrupted,
# written before KillWait (10 s) ran out, and no checkpoint run started after it. mpirun
# in a batch job (its daemons started through srun) records launcher mpirun and the job.
# Buggy: a README that says plain srun works; ranks that each run alone (8 singletons);
# a summary without the job; a batch job that passes when the storage fell short, or
# that leaves nothing behind at its time limit.
# 45 s on 2 cores at load 7 (bring-up 16 s, of which Slurm 5; teardown 5 s), 75 s at load
# 15; GPUFEED_LONG_TESTS=1 adds 3.5-4 minutes, most of it the time limit (Slurm's limits
# are in minutes and checked every 30 s).
. "$(dirname "$0")/lib.sh"
command -v slurmctld >/dev/null || { echo "SKIP: Slurm not installed (scripts/install-deps.sh --test)"; exit 77; }
tb_up --clients 4 --servers 1 --slurm
HOSTS='["gft-c1","gft-c2","gft-c3","gft-c4"]'
A=$SRCDIR/scripts/testbed-agent.sh
SRUN=(timeout 300 "$SRCDIR/scripts/testbed-srun.sh")
on_c1() { timeout 600 "$A" gft-c1 "$(printf '%q ' "$@")"; }
# scontrol's KEY=VALUE of a job.
job_field() { on_c1 scontrol show job "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

# The default suite keeps to the cheap half: srun's training run and --mpi=pmi2.
LONG=${GPUFEED_LONG_TESTS:-0}

# --- srun --mpi=pmix: 8 ranks on 4 hosts, training (and a checkpoint) ---
t0=$SECONDS
res=$TMP/r-train
if "${SRUN[@]}" --mpi=pmix -N 4 --ntasks-per-node=2 "$GPUFEED" run "$SMALL" --target "$TMP/d" --results "$res" \
	--quiet >"$TMP/o" 2>&1; then
	s=$(only_result "$res")/summary.json
	expect "srun: 8 ranks on 4 nodes, 2 per node, named by host" "$s" ".status == \"complete\" and .environment.ranks == 8 and .environment.nodes == 4 and .environment.ranks_per_node == 2 and .environment.hosts == $HOSTS"
	expect "srun: launcher srun, the Slurm job's node list and tasks per node" "$s" '.environment.launcher == "srun" and .environment.slurm.nodelist == "gft-c[1-4]" and .environment.slurm.tasks_per_node == "2(x4)"'
	expect "srun: nodes[]: 4 hosts of 2 ranks, their reads add up to the run's" "$s" "([.nodes[].host] == $HOSTS) and ([.nodes[] | .ranks == 2] | all) and (([.nodes[].read_bytes] | add) == .train.read_bytes)"
	id=$(jq -r '.environment.slurm.job_id' "$s")
	got="$(job_field "$id" NodeList) $(job_field "$id" NumTasks) $(job_field "$id" JobState)"
	[ "$got" = "gft-c[1-4] 8 COMPLETED" ] && ok "srun: scontrol knows job $id as 8 tasks on gft-c[1-4], completed" ||
		bad "srun: job $id is '$got' to scontrol, not 'gft-c[1-4] 8 COMPLETED'"
else
	bad "srun --mpi=pmix: training on 4 hosts"
	cat "$TMP/o"
fi
# The restore rule under srun (the same MPI layout as under mpirun, so the long half only).
ckpt() {
	local res=$TMP/r-ck s
	if ! "${SRUN[@]}" --mpi=pmix -N 4 --ntasks-per-node=2 "$GPUFEED" run "$SRCDIR/workloads/llama3_8b.yaml" \
		--set checkpoint.scale=1/4000 --set checkpoint.time_between_checkpoints=0 --set checkpoint.num_checkpoints_write=1 \
		--set checkpoint.num_checkpoints_read=1 --set model.parallelism.data=8 --target "$TMP/ck" --results "$res" \
		--quiet >"$TMP/o" 2>&1; then
		bad "srun --mpi=pmix: a checkpoint run on 4 hosts"
		cat "$TMP/o"
		return
	fi
	s=$(only_result "$res")/summary.json
	expect "srun: 8 shards written and restored, verified" "$s" '.checkpoint.write_count == 1 and .checkpoint.restore_count == 1 and .checkpoint.verified == true'
	expect "srun: restore_from is a permutation and never the reader's own host" "$s" '.checkpoint.restore_from as $f | .environment.rank_hosts as $h | ($f | sort) == [range(8)] and ([range(8) | $h[.] != $h[$f[.]]] | all)'
}
[ "$LONG" = 1 ] && ckpt

# --- the other MPI plugins: Debian's Open MPI has no PMI-2 (nor PMI-1) support ---
mpis=(pmi2)
[ "$LONG" = 1 ] && mpis+=('')
for mpi in "${mpis[@]}"; do
	name=${mpi:-"no --mpi (none)"}
	rc=0
	"${SRUN[@]}" ${mpi:+--mpi=$mpi} -N 4 --ntasks-per-node=2 "$GPUFEED" run "$SMALL" --target "$TMP/d" \
		--results "$TMP/r-$mpi" --quiet >"$TMP/o" 2>&1 || rc=$?
	notes=$(grep -c "gpufeed: note: srun started this task without PMIx (--mpi=${mpi:-none}).*srun --mpi=pmix" "$TMP/o")
	fails=$(grep -c "OMPI was not built with SLURM's PMI support" "$TMP/o")
	if [ "$rc" != 0 ] && [ "$notes" = 1 ] && [ "$fails" = 8 ] && [ ! -e "$TMP/r-$mpi" ]; then
		ok "srun $name: every rank fails in MPI_Init (Open MPI: no Slurm PMI support), one note names --mpi=pmix, no results"
	else
		bad "srun $name: exit $rc, $notes note(s), $fails Open MPI refusal(s), results: $(ls "$TMP/r-$mpi" 2>&1)"
		head -20 "$TMP/o"
	fi
done
echo "   srun runs: $((SECONDS - t0)) s"

if [ "$LONG" != 1 ]; then
	echo "   the checkpoint under srun, no --mpi, sbatch and the time limit: GPUFEED_LONG_TESTS=1 (3.5-4 minutes)"
	finish
fi

# --- sbatch: scripts/slurm/gpufeed.sbatch, waited for ---
# The transport and the idle yield testbed-srun.sh sets (a node here claims 8 CPUs of the
# machine's 2, so Open MPI does not know it is oversubscribed; without the yield the 8
# ranks' polling in the step barrier starved the sweep point: AU 28.7%, and 92.4% with it).
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=$GF_TESTBED_SUBNET
export OMPI_MCA_mpi_yield_when_idle=1
export GPUFEED GF_WORKLOAD=$SMALL GF_RESULTS=$TMP/jobs
# One point of 8 accelerators, 5 s, from the start (no ceiling): 1024 files let 64.
SWEEP="--set dataset.num_files_train=1024 --set train.computation_time=10ms --start 8 --max-points 1 --quiet"
export GF_CKPT_ARGS="--set model.parallelism.data=8 --set checkpoint.scale=1/4000 --set checkpoint.time_between_checkpoints=0 --set checkpoint.num_checkpoints_write=1 --set checkpoint.num_checkpoints_read=1 --quiet"
# submit NAME SBATCH-ARGS...: a batch job on the 4 hosts x 2 tasks, waited for; sets id and
# state (JobState and ExitCode). Polled each second: sbatch --wait sleeps 2, 8, then 32 s
# between looks.
submit() {
	local name=$1 st=''
	shift
	id=$(on_c1 sbatch --parsable -N 4 --ntasks-per-node=2 -o "$TMP/job-$name.out" "$@" 2>"$TMP/sb-$name")
	[[ $id =~ ^[0-9]+$ ]] || { state="not submitted: $(cat "$TMP/sb-$name")"; id=0; return; }
	for _ in $(seq 1 300); do
		st=$(job_field "$id" JobState)
		case $st in
		PENDING | CONFIGURING | RUNNING | COMPLETING) sleep 1 ;;
		*) break ;;
		esac
	done
	state="$st $(job_field "$id" ExitCode)"
	echo "   $name: job $id, $state after $(job_field "$id" RunTime)"
}
# job_ran NAME ID LABEL: results/slurm-ID/LABEL is complete and names job ID.
job_ran() {
	local s=$GF_RESULTS/slurm-$2/$3/summary.json
	[ -f "$s" ] || { bad "$1: no $s"; ls -R "$GF_RESULTS" | head; cat "$TMP/job-$1.out"; return; }
	expect "$1: slurm-$2/$3 complete, launched by srun in job $2 on gft-c[1-4]" "$s" ".status == \"complete\" and .environment.launcher == \"srun\" and .environment.slurm.job_id == \"$2\" and .environment.slurm.nodelist == \"gft-c[1-4]\" and .environment.ranks == 8"
}

t0=$SECONDS
SB=("$SRCDIR/scripts/slurm/gpufeed.sbatch" "$TMP/tgt")
GF_SWEEP_ARGS="$SWEEP --point-seconds 5" GF_REQUIRE_FED=8 submit fed "${SB[@]}"
if [ "$state" = "COMPLETED 0:0" ]; then
	ok "fed: the job is COMPLETED, exit code 0"
	job_ran fed "$id" sweep
	job_ran fed "$id" checkpoint
	expect "fed: the sweep fed the 8 accelerators it required" "$GF_RESULTS/slurm-$id/sweep/summary.json" '.sweep.accelerators_fed >= 8'
	echo "   fed: the point's AU $(jq '.sweep.points[0].au_percent.mean' "$GF_RESULTS/slurm-$id/sweep/summary.json")%"
else
	bad "fed: job $id $state, not COMPLETED 0:0"
	cat "$TMP/job-fed.out"
fi
GF_SWEEP_ARGS="$SWEEP --point-seconds 5" GF_REQUIRE_FED=1000 submit short "${SB[@]}"
if [ "$state" = "FAILED 3:0" ]; then
	ok "short of --require-fed 1000: the job FAILED with exit code 3"
	grep -q -- "--require-fed 1000: the sweep fed 8 accelerator(s), fewer than 1000" "$TMP/job-short.out" &&
		ok "short: the job's output says how many were fed" || bad "short: no --require-fed line in the job's output"
	job_ran short "$id" sweep
	job_ran short "$id" checkpoint
else
	bad "short: job $id $state, not FAILED 3:0"
	cat "$TMP/job-short.out"
fi
# mpirun in a batch script, as many sites run Open MPI: it reaches the other nodes through
# srun (Open MPI's plm/slurm) and takes the hosts from the allocation.
submit mpirun --wrap "$(printf '%q ' mpirun --bind-to none "$GPUFEED" run "$SMALL" --target "$TMP/d" --results "$TMP/r-mpirun" --quiet)"
if [ "$state" = "COMPLETED 0:0" ]; then
	expect "mpirun in a batch job: launcher mpirun, the job's id, 8 ranks on the 4 hosts, 2 each" "$(only_result "$TMP/r-mpirun")/summary.json" ".environment.launcher == \"mpirun\" and .environment.slurm.job_id == \"$id\" and .environment.slurm.tasks_per_node == \"2(x4)\" and .environment.hosts == $HOSTS and .environment.ranks_per_node == 2"
else
	bad "mpirun in a batch job: $state"
	cat "$TMP/job-mpirun.out"
fi
echo "   three batch jobs: $((SECONDS - t0)) s"

# --- the time limit: SIGTERM in the middle of a sweep point, SIGKILL KillWait later ---
t0=$SECONDS
GF_SWEEP_ARGS="$SWEEP --set train.epochs=1000 --point-seconds 300" GF_REQUIRE_FED=8 submit limit --time=1 "${SB[@]}"
p=$GF_RESULTS/slurm-$id/sweep.partial/summary.json
if [ "${state% *}" = TIMEOUT ] && [ -f "$p" ]; then
	ok "limit: the job ended by its time limit ($state) and left sweep.partial/summary.json"
	expect "limit: the partial summary says interrupted by a signal, in job $id" "$p" ".status == \"interrupted\" and .error == \"stopped by a signal\" and .environment.slurm.job_id == \"$id\" and (.sweep.points | length) == 1"
	# SIGTERM came at the job's end time; SIGKILL would have come KillWait (10 s) later.
	end=$(date -d "$(job_field "$id" EndTime)" +%s)
	late=$(($(stat -c %Y "$p") - end))
	[ "$late" -ge -1 ] && [ "$late" -lt 10 ] && ok "limit: the summary was written $late s after the time limit's SIGTERM, within KillWait (10 s)" ||
		bad "limit: the summary was written $late s after the job's end time, not within KillWait"
	left=$(find "$GF_RESULTS/slurm-$id" -mindepth 1 -maxdepth 1 ! -name sweep.partial)
	[ -z "$left" ] && ok "limit: nothing else in slurm-$id: no checkpoint run started after the signal" || bad "limit: also in slurm-$id: $left"
	grep -q "gpufeed.sbatch: SIGTERM" "$TMP/job-limit.out" && ok "limit: the batch script saw SIGTERM and waited for the ranks" ||
		bad "limit: the batch script did not say it saw SIGTERM"
else
	bad "limit: job $id $state, $p: $(ls "$p" 2>&1)"
	cat "$TMP/job-limit.out"
fi
echo "   the time limit: $((SECONDS - t0)) s"
[ "$(on_c1 squeue -h | wc -l)" = 0 ] && ok "no job left in the queue" || bad "jobs left: $(on_c1 squeue -h)"
finish
