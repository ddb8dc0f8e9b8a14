#!/usr/bin/env bash
# Starts the audit service: 'plain' (one process, a plain POA, run/audit-plain.ior) or replica N (1, 2 or 3) of the
# audit group (config/audit-N.properties, run/audit.ior). Stop it with SIGTERM.
set -euo pipefail
cd "$(dirname "$0")"
. ./classpath.sh
n="${1:?usage: run-audit.sh plain|1|2|3}"
if [ "$n" = plain ]; then
  exec java "${JAVA_OPTS[@]}" -Dcustom.props=config/audit-plain.properties -cp "$CP" \
    com.example.bank.AuditServer plain run/audit-plain.ior
fi
exec java "${JAVA_OPTS[@]}" -Dcustom.props="config/audit-$n.properties" -cp "$CP" \
  com.example.bank.AuditServer group run/audit.ior
