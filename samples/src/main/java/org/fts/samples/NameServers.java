package org.fts.samples;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.fts.process.ChildJvm;
import org.omg.CORBA.ORB;
import org.omg.CosNaming.NamingContextExtHelper;

/**
 * JacORB's CosNaming NameServer in its own JVM on 127.0.0.1, as {@code bin/fts naming} runs it: reachable at
 * {@code corbaloc::127.0.0.1:<port>/NameService}, its bindings kept in a directory.
 */
public final class NameServers {
    private NameServers() {
    }

    /** The JVM options {@code bin/fts naming} and {@link #start} give JacORB's NameServer. */
    public static List<String> options(int port, Path db) {
        return List.of("-Dorg.omg.CORBA.ORBClass=org.jacorb.orb.ORB",
                "-Dorg.omg.CORBA.ORBSingletonClass=org.jacorb.orb.ORBSingleton", "-DOAIAddr=127.0.0.1",
                "-DOAPort=" + port, "-Djacorb.naming.db_dir=" + db.toAbsolutePath());
    }

    /** The corbaloc of the NameServer on {@code port}. */
    public static String url(int port) {
        return "corbaloc::127.0.0.1:" + port + "/NameService";
    }

    /** Starts a NameServer and waits (bounded) until {@code orb} reaches it. */
    public static ChildJvm start(ORB orb, int port, Path db, Path logs) throws IOException {
        ChildJvm ns = ChildJvm.start("nameserver-" + port, org.jacorb.naming.NameServer.class, options(port, db),
                List.of(), logs, line -> { });
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                NamingContextExtHelper.narrow(orb.string_to_object(url(port))).to_name("probe");
                return ns;
            } catch (org.omg.CORBA.SystemException | org.omg.CosNaming.NamingContextPackage.InvalidName e) {
                if (!ns.isAlive() || System.nanoTime() > deadline) {
                    ns.close();
                    throw new IOException("the name server on port " + port + " did not start: " + e);
                }
                try {
                    Thread.sleep(100);   // polling a condition, bounded by the deadline
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    ns.close();
                    throw new IOException("interrupted", ie);
                }
            }
        }
    }
}
