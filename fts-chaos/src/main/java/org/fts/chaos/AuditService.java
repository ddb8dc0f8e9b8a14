package org.fts.chaos;

import java.util.Properties;

import org.fts.samples.AuditImpl;
import org.fts.samples.Clients;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * The audit service of {@code --workload bank}: a plain CORBA server (no FTS) in the chaos JVM, on 127.0.0.1, which
 * the bank's replicas call from every transfer. They run with {@code fts.outcalls=ordered}: one replica makes each call
 * and every replica goes on with its ordered outcome (docs/goa.md, "Calls out to other servers"), at least once.
 * Outside the nemesis's reach: it is the other system a replicated server calls, not a replica.
 */
final class AuditService implements AutoCloseable {
    private final ORB orb;
    private final AuditImpl servant = new AuditImpl();
    private final String reference;

    AuditService() throws Exception {
        Properties p = Clients.orbDefaults();   // the replicas' codeset: the relay copies characters as negotiated
        p.setProperty("OAIAddr", "127.0.0.1");
        orb = ORB.init(new String[0], p);
        POA root = POAHelper.narrow(orb.resolve_initial_references("RootPOA"));
        root.the_POAManager().activate();
        reference = orb.object_to_string(root.servant_to_reference(servant));
        Thread t = new Thread(orb::run, "chaos-audit");
        t.setDaemon(true);
        t.start();
    }

    /** The replicas' options: the audit's reference for the sample bank, and ordered outcalls. */
    java.util.List<String> replicaOptions() {
        return java.util.List.of("-Dsamples.bank.audit=" + reference, "-Dfts.outcalls=ordered");
    }

    /** The entries recorded so far, in order: one per call that reached it. */
    java.util.List<String> entries() {
        return servant.entries();
    }

    @Override
    public void close() {
        orb.shutdown(false);
    }
}
