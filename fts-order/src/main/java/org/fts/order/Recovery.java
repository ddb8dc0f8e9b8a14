package org.fts.order;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How the steps that follow a protocol event run, once the member's monitor is released. */
final class Recovery {
    private static final Logger LOG = LoggerFactory.getLogger(Recovery.class);

    private Recovery() {
    }

    /**
     * Runs every action even if one fails: the actions after a recovery step (open the epoch, acknowledge,
     * resend, tell the other members) must not be cut short by an unrelated failure of one of them.
     */
    static void runAll(List<Runnable> actions) {
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException e) {
                LOG.error("recovery step failed; the others go on", e);
            }
        }
    }
}
