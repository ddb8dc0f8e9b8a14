package org.fts.gc.jgroups;

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupException;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.stack.ProtocolStack;

/**
 * Fault injection for JGroups members in this JVM, as protocols inserted at run time (JGroups' own way).
 * For a real crash, run members as processes and {@code kill -9} them.
 */
public final class JGroupsFaults {
    private JGroupsFaults() {
    }

    /**
     * Makes {@code member} vanish as if its process died: a DISCARD protocol drops everything it sends and
     * receives (so no graceful leave reaches anyone), then its channel is closed. The others find out by
     * failure detection, as after a real crash.
     */
    public static void crash(GroupChannel member) {
        isolate(member);
        member.close();
    }

    /**
     * Cuts {@code member} off from every other member, as a network partition would, without stopping it: a
     * DISCARD protocol drops everything it sends and receives, until {@link #heal}. The others suspect it by
     * failure detection and go on in their own view; it ends up alone in its own.
     */
    public static void isolate(GroupChannel member) {
        JChannel ch = jchannel(member);
        if (ch.getProtocolStack().findProtocol(DISCARD.class) != null) {
            return;   // already cut off
        }
        DISCARD discard = new DISCARD().discardAll(true);
        discard.setAddress(ch.getAddress());
        try {
            ch.getProtocolStack().insertProtocol(discard, ProtocolStack.Position.ABOVE,
                    ch.getProtocolStack().getTransport().getClass());
        } catch (Exception e) {
            throw new GroupException("cannot inject DISCARD into " + member.self(), e);
        }
    }

    /** Ends {@link #isolate}: the member's traffic flows again, and the partition merges (MERGE3). */
    public static void heal(GroupChannel member) {
        JChannel ch = jchannel(member);
        DISCARD discard = ch.getProtocolStack().findProtocol(DISCARD.class);
        if (discard != null) {
            ch.getProtocolStack().removeProtocol(discard);
        }
    }

    private static JChannel jchannel(GroupChannel member) {
        if (!(member instanceof JGroupsChannel jc) || jc.jchannel() == null) {
            throw new GroupException(member.self() + " is not a joined JGroups channel");
        }
        return jc.jchannel();
    }
}
