#!/usr/bin/env bash
# Starts replica N (1, 2 or 3) of the bank with config/bank-N.properties. The audit services must have written their
# references (run/audit.ior, run/audit-plain.ior). It writes its PID to run/bank-N.pid and, once it serves, the bank's
# object group reference to run/bank.ior. Stop it with SIGTERM: it leaves the group gracefully.
set -euo pipefail
cd "$(dirname "$0")"
. ./classpath.sh
n="${1:?usage: run-bank.sh 1|2|3}"
echo $$ > "run/bank-$n.pid"   # exec keeps the PID: it is the replica's
exec java "${JAVA_OPTS[@]}" -Dcustom.props="config/bank-$n.properties" -cp "$CP" \
  com.example.bank.BankReplica run/bank.ior run/audit.ior run/audit-plain.ior
