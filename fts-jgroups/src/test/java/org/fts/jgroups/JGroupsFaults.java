package org.fts.jgroups;

import org.fts.gc.GroupChannel;
import org.fts.gc.GroupException;
import org.jgroups.JChannel;
import org.jgroups.protocols.DISCARD;
import org.jgroups.stack.Protocol;
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
        if (ch.getProtocolStack().findProtocol(DISCARD.class, p -> !(p instanceof PairDiscard)) != null) {
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
        DISCARD discard = ch.getProtocolStack().findProtocol(DISCARD.class, p -> !(p instanceof PairDiscard));
        if (discard != null) {
            ch.getProtocolStack().removeProtocol(discard);
        }
    }

    /**
     * A one-way link fault, as a firewall rule dropping one direction would make it: {@code to} drops everything
     * it receives from {@code from} (its failure detector, its merges and FTS's own traffic alike), until
     * {@link #restore}. Both directions make a cut pair; cutting two members from each other while both reach
     * a third makes a bridge, a non-transitive partition.
     */
    public static void cut(GroupChannel from, GroupChannel to) {
        JChannel src = jchannel(from);
        pairFilter(to).addIgnoreMember(src.getAddress());
    }

    /** Ends every {@link #cut} into {@code member}: it receives from everyone again. */
    public static void restore(GroupChannel member) {
        JChannel ch = jchannel(member);
        for (Protocol p : ch.getProtocolStack().getProtocols()) {
            if (p instanceof PairDiscard d) {
                ch.getProtocolStack().removeProtocol(d);
                return;
            }
        }
    }

    private static PairDiscard pairFilter(GroupChannel member) {
        JChannel ch = jchannel(member);
        for (Protocol p : ch.getProtocolStack().getProtocols()) {
            if (p instanceof PairDiscard d) {
                return d;
            }
        }
        PairDiscard d = new PairDiscard();
        d.setAddress(ch.getAddress());
        try {
            ch.getProtocolStack().insertProtocol(d, ProtocolStack.Position.ABOVE,
                    ch.getProtocolStack().getTransport().getClass());
        } catch (Exception e) {
            throw new GroupException("cannot inject a link filter into " + member.self(), e);
        }
        return d;
    }

    /** The per-sender filter of {@link #cut}, a type of its own so that {@link #isolate}'s DISCARD stays apart. */
    static final class PairDiscard extends DISCARD {
    }

    private static JChannel jchannel(GroupChannel member) {
        if (!(member instanceof JGroupsBacked jc) || jc.jchannel() == null) {
            throw new GroupException(member.self() + " is not a joined JGroups channel");
        }
        return jc.jchannel();
    }
}
