package org.fts.loadtest.campaign;

import java.io.File;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import net.grinder.engine.agent.AgentImplementation;

/**
 * The main class of a Grinder agent JVM started by the campaign runner: runs one Grinder agent, without a
 * console, on the given {@code grinder.properties}, and exits when its worker processes are done (0) or on
 * an error (1). Runs on the Grinder classpath ({@code target/grinder-lib}), not on FTS's.
 */
public final class GrinderAgent {
    private GrinderAgent() {
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: GrinderAgent <grinder.properties>");
        }
        Logger log = LoggerFactory.getLogger("agent");
        int status = 0;
        try {
            AgentImplementation agent = new AgentImplementation(log, new File(args[0]), true);
            try {
                agent.run();
            } finally {
                agent.shutdown();
            }
        } catch (Exception e) {
            log.error("grinder agent failed", e);
            status = 1;
        }
        System.exit(status);   // Grinder leaves non-daemon threads behind
    }
}
