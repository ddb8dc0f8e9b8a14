package org.fts.gc.jgroups;

import java.util.List;

import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.JChannel;
import org.jgroups.protocols.pbcast.GMS;

/**
 * Suspicions raised by FTS's own watches (the total order's {@code StallWatch} and {@code SequencerWatch}) through a member's GMS, as
 * its failure detector would raise them: above VERIFY_SUSPECT2, since the watches verified with their own probes.
 * The coordinator excludes the suspects; a coordinator suspected by the member next in line is replaced by that
 * member; a member that suspects everyone else in its view becomes a view of its own, which MERGE3 merges back.
 */
final class GmsSuspicion {
    private GmsSuspicion() {
    }

    /** @return whether the suspicion was raised (false: no channel, or no GMS in its stack) */
    static boolean suspect(JChannel channel, List<Address> suspects) {
        GMS gms = channel == null ? null : channel.getProtocolStack().findProtocol(GMS.class);
        if (gms == null) {
            return false;
        }
        gms.up(new Event(Event.SUSPECT, suspects));
        return true;
    }
}
