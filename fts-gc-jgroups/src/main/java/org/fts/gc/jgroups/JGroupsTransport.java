package org.fts.gc.jgroups;

import java.util.List;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.jgroups.AddressBook;
import org.fts.jgroups.BoardLink;
import org.fts.order.TotalOrder;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The total order's channels as JGroups messages: data is flow-controlled ({@code UFC}/{@code MFC}); control messages
 * are not ({@code NO_FC}); urgent ones may also overtake ({@code OOB}); multicasts do not loop back. A member gone
 * from the view is skipped: the protocol recovers through the next view. Exclusions go through this member's GMS.
 */
final class JGroupsTransport implements TotalOrder.Transport {
    private static final Logger LOG = LoggerFactory.getLogger(JGroupsTransport.class);

    private final MemberId self;
    private final AddressBook addresses;
    private final BoardLink board;
    /** {@code fts.gc.jgroups.stall_timeout} in nanoseconds, for the log line of an exclusion. */
    private final long stallNanos;
    private volatile JChannel channel;
    private volatile boolean closed;

    JGroupsTransport(MemberId self, AddressBook addresses, BoardLink board, long stallNanos) {
        this.self = self;
        this.addresses = addresses;
        this.board = board;
        this.stallNanos = stallNanos;
    }

    /** The channel it sends on, once made (messages sent before are dropped, as to a member gone). */
    void attach(JChannel ch) {
        channel = ch;
    }

    /** Sends nothing any more. */
    void close() {
        closed = true;
    }

    /** Excludes {@code member} through this member's GMS, as its failure detector would. */
    @Override
    public void exclude(MemberId member) {
        exclude(member, "it did not answer");
    }

    @Override
    public void exclude(MemberId member, String why) {
        Address a = addresses.get(member);
        if (a != null && !closed && GmsSuspicion.suspect(channel, List.of(a))) {
            LOG.warn("{}: {} suspected after {} ms: {} (this member cannot reach it, or it this member)", self, member,
                    stallNanos / 1_000_000, why);
        }
    }

    @Override
    public void leaveView(View stale, MemberId sequencer) {
        List<Address> others = stale.members().stream().filter(m -> !m.equals(self)).map(addresses::get)
                .filter(java.util.Objects::nonNull).toList();
        if (!others.isEmpty() && !closed && GmsSuspicion.suspect(channel, others)) {
            LOG.warn("{}: the sequencer {} answers that this member is not in its view: it was excluded without "
                    + "learning it; it leaves view {} (a merge brings it back)", self, sequencer, stale.id());
        }
    }

    @Override
    public void unicast(MemberId to, byte[] msg) {
        unicast(to, new BytesMessage(null, msg));
    }

    @Override
    public void control(MemberId to, byte[] msg) {
        unicast(to, new BytesMessage(null, msg).setFlag(Message.Flag.NO_FC));
    }

    @Override
    public void urgent(MemberId to, byte[] msg) {
        unicast(to, new BytesMessage(null, msg).setFlag(Message.Flag.NO_FC, Message.Flag.OOB));
    }

    /**
     * Outside UNICAST3 ({@code NO_RELIABILITY}): no sequence number, retransmission or UNICAST3 acknowledgement of
     * its own, and {@link DirectOrdering} may handle it on the receiver thread (UNICAST3 drains a sender's queue only
     * for messages it numbered). A lost one is repeated by the member's timer ({@link TotalOrder.Transport#ack}).
     */
    @Override
    public void ack(MemberId to, byte[] msg) {
        unicast(to, new BytesMessage(null, msg).setFlag(Message.Flag.NO_FC, Message.Flag.OOB,
                Message.Flag.NO_RELIABILITY, Message.Flag.DONT_BUNDLE));
    }

    @Override
    public void probe(MemberId to, byte[] msg) {
        Address a = addresses.getOrDeparted(to);
        if (a != null && !closed) {
            send(a, to, new BytesMessage(null, msg).setFlag(Message.Flag.NO_FC, Message.Flag.OOB));
        }
    }

    private void unicast(MemberId to, Message msg) {
        Address a = addresses.get(to);
        if (a == null || closed) {
            return;   // the member is gone; the protocol recovers through the next view
        }
        send(a, to, msg);
    }

    private void send(Address a, MemberId to, Message msg) {
        if (closed) {
            return;
        }
        try {
            channel.send(board.unicast(msg, to).setDest(a));
        } catch (Exception e) {
            LOG.debug("{}: unicast to {} failed: {}", self, to, e.toString());
        }
    }

    @Override
    public void multicast(byte[] msg) {
        multicast(new BytesMessage(null, msg));
    }

    @Override
    public void multicastUrgent(byte[] msg) {
        multicast(new BytesMessage(null, msg).setFlag(Message.Flag.NO_FC, Message.Flag.OOB));
    }

    private void multicast(Message msg) {
        if (closed) {
            return;
        }
        try {
            channel.send(board.multicast(msg).setFlag(Message.TransientFlag.DONT_LOOPBACK));
        } catch (Exception e) {
            LOG.debug("{}: multicast failed: {}", self, e.toString());
        }
    }
}
