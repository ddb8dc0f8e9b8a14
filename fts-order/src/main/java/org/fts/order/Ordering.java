package org.fts.order;

import java.util.Arrays;
import java.util.List;

/**
 * How {@link TotalOrder} orders broadcasts ({@code fts.gc.jgroups.ordering}); docs/group-communication.md,
 * "Leader offload". Recovery, epochs, uniform delivery and state transfer are the same under both.
 */
public enum Ordering {
    /**
     * The epoch's sequencer receives every broadcast in full (FWD), numbers it and multicasts it (ORD): two hops,
     * but every payload crosses the sequencer's links twice.
     */
    SEQUENCER("sequencer"),
    /**
     * Leader offload (UUM2): an origin asks the sequencer for positions for everything it has queued (REQ), the
     * sequencer answers with a block of positions (GRANT), and the origin multicasts its own payloads (DATA).
     * The sequencer handles only grants, acknowledgements and recoveries; members hold entries in position
     * order, so a granted position not yet filled holds back the ones after it.
     */
    OFFLOAD("offload");

    final String alias;

    Ordering(String alias) {
        this.alias = alias;
    }

    public static List<String> aliases() {
        return Arrays.stream(values()).map(o -> o.alias).toList();
    }

    public static Ordering of(String alias) {
        for (Ordering o : values()) {
            if (o.alias.equals(alias)) {
                return o;
            }
        }
        throw new IllegalArgumentException("no ordering " + alias + "; one of " + aliases());
    }
}
