#!/usr/bin/env bash
# One call on the store through its object group reference (target/store.ior), with FTS failover on
# (config/client.properties): run-client.sh put K V | get K | remove K | size
set -euo pipefail
cd "$(dirname "$0")"
exec java -Djava.net.preferIPv4Stack=true \
  -Dorg.omg.CORBA.ORBClass=org.jacorb.orb.ORB -Dorg.omg.CORBA.ORBSingletonClass=org.jacorb.orb.ORBSingleton \
  -Dcustom.props=config/client.properties \
  -cp "target/classes:target/lib/*" com.example.kv.KvClient target/store.ior "$@"
