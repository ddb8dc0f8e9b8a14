#!/usr/bin/env bash
# Starts replica N (1, 2 or 3) of the store with config/replica-N.properties; it writes the store's object
# group reference to target/store.ior. Stop it with SIGTERM (Ctrl-C): it leaves the group gracefully.
set -euo pipefail
cd "$(dirname "$0")"
n="${1:?usage: run-replica.sh 1|2|3}"
exec java -Djava.net.preferIPv4Stack=true \
  -Dorg.omg.CORBA.ORBClass=org.jacorb.orb.ORB -Dorg.omg.CORBA.ORBSingletonClass=org.jacorb.orb.ORBSingleton \
  -Dcustom.props="config/replica-$n.properties" \
  -cp "target/classes:target/lib/*" com.example.kv.KvReplica target/store.ior
