# Sourced by the run-*.sh scripts: the class path, from the built tree (target/, after mvn package) or, in FTS's
# archive (examples/bank), from this example's jar and the archive's lib/.
if [ -d target/classes ]; then
  CP="target/classes:target/lib/*"
else
  CP="fts-example-bank.jar:../../lib/*"
fi
JAVA_OPTS=(-Djava.net.preferIPv4Stack=true -Dorg.omg.CORBA.ORBClass=org.jacorb.orb.ORB
  -Dorg.omg.CORBA.ORBSingletonClass=org.jacorb.orb.ORBSingleton)
mkdir -p run
