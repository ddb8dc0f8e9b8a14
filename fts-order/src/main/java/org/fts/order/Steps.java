package org.fts.order;

import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps that follow a protocol event (open the epoch, acknowledge, resend, tell the other members), run once the
 * member's monitor is released.
 */
final class Steps {
    private static final Logger LOG = LoggerFactory.getLogger(Steps.class);

    private Steps() {
    }

    /**
     * Runs every action even if one fails: the actions after a protocol step (open the epoch, acknowledge,
     * resend, tell the other members) must not be cut short by an unrelated failure of one of them.
     */
    static void runAll(List<Runnable> actions) {
        for (Runnable a : actions) {
            try {
                a.run();
            } catch (RuntimeException e) {
                LOG.error("a protocol step failed; the others go on", e);
            }
        }
    }
}
