#!/usr/bin/env bash
# One client command on the bank (config/client.properties: FTS failover on): run-client.sh open AMOUNT |
# transfer FROM TO AMOUNT | close ID INTO | balance ID | statement ID | total | transfers A B | audit
set -euo pipefail
cd "$(dirname "$0")"
. ./classpath.sh
exec java "${JAVA_OPTS[@]}" -Dcustom.props=config/client.properties -cp "$CP" com.example.bank.BankClient run "$@"
