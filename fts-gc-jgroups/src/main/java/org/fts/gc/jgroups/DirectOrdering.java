package org.fts.gc.jgroups;

import org.fts.order.TotalOrder;
import org.jgroups.Message;
import org.jgroups.util.MaxOneThreadPerSender;
import org.jgroups.util.MessageBatch;

/**
 * How FTS's UDP stack hands received messages to the protocols ({@code message_processing_policy}): a regular (not
 * OOB) multicast, and a batch's acknowledgement sent outside UNICAST3, are passed up on the thread that received
 * them; everything else as JGroups' default does ({@code max}: at most one pool thread per sender). The regular
 * multicasts are the sequencer's ORDs, the group's traffic, and JGroups' own protocol multicasts.
 *
 * <p>Why: a pool thread per received ORD batch cost each member a thread wake-up per batch on the ordering path
 * (measured with {@code bin/fts load}; docs/performance.md). Handling them on the multicast receiver is safe because
 * nothing they lead to waits for that receiver:
 * <ul>
 *   <li>NAKACK2 hands a regular multicast, and any queued after it from the same sender, to the thread that
 *       delivers it: only multicasts, so only ORDs and views of FTS's own. {@code org.fts.order.Member.onOrd} takes a short
 *       monitor whose holders never wait while holding it, queues deliveries without blocking, and answers with an
 *       acknowledgement that flow control does not hold (NO_FC, OOB). A view may wait for the sequencer's monitor,
 *       whose holder may wait for flow-control credits; but credits travel as unicasts, which this policy leaves
 *       to the pool, so that holder never needs the multicast receiver.</li>
 *   <li>Unicasts stay on the pool, all of them. The sequencer handles a forwarded broadcast (a regular unicast) by
 *       multicasting under flow control, and that thread must not be the one the credits arrive on. Nor may any
 *       OOB unicast be handled on the receiver: UNICAST3 delivers the sender's queued regular messages on the
 *       thread that delivered an OOB one. Acknowledgements handled there once did exactly that, and a sequencer
 *       out of credits deadlocked ({@code JGroupsFlowControlTest}). JGroups' own {@code direct} policy runs regular
 *       unicasts on the receiver; FTS does not, for that reason.</li>
 *   <li>The one exception: a batch's acknowledgement ({@code TotalOrder.Transport#ack}), which the binding sends with
 *       {@code NO_RELIABILITY}. UNICAST3 passes such a message up as it is, without touching the sender's queue, and
 *       its handling ({@code org.fts.order.Acks}) takes the acknowledgement book's own lock and the member's short
 *       monitor, never the sequencer's, and sends only control messages (NO_FC). It saves the sequencer a pool
 *       thread's wake-up per acknowledgement (docs/performance.md, "The lone client: acknowledgements"). A member
 *       that forwards broadcasts of its own sends its acknowledgements reliably (docs/group-communication.md). An
 *       encrypted stack ({@code SYM_ENCRYPT}) hides the message's type here, and its acknowledgements go to the
 *       pool.</li>
 * </ul>
 * Tested by {@code JGroupsFlowControlTest} (three members flat out under tiny credits), {@code DirectOrderingTest}
 * (what runs on the receiver), the conformance suites on the shipped stacks ({@code JGroupsUdpConformanceTest}: a
 * blocked listener, crashes mid-traffic, partitions) and the chaos harness.
 */
public final class DirectOrdering extends MaxOneThreadPerSender {
    @Override
    public boolean process(Message msg, boolean oob) {
        if (oob && msg.getDest() != null && isAck(msg)) {
            try {
                tp.passMessageUp(msg, true, false, false);
            } catch (Throwable t) {
                log.error("FTS: passing an acknowledgement up failed", t);
            }
            return true;
        }
        if (oob || msg.getDest() != null) {
            return super.process(msg, oob);
        }
        try {
            tp.passMessageUp(msg, true, true, true);
        } catch (Throwable t) {
            log.error("FTS: passing a multicast up failed", t);
        }
        return true;
    }

    @Override
    public boolean process(MessageBatch batch, boolean oob) {
        if (oob || batch.dest() != null) {
            return super.process(batch, oob);
        }
        new BatchHandler(batch, false).run();
        return true;
    }

    /**
     * An FTS acknowledgement sent outside UNICAST3 ({@code NO_RELIABILITY}, so UNICAST3 passes it up without touching
     * the sender's queue) and readable here (not encrypted below NAKACK2).
     */
    static boolean isAck(Message msg) {
        return msg.isFlagSet(Message.Flag.NO_RELIABILITY) && msg.hasArray()
                && TotalOrder.isAck(msg.getArray(), msg.getOffset(), msg.getLength());
    }

    /**
     * What the jgroups binding puts into the shipped stack: this policy on the udp transport (its placeholder is in the
     * shipped udp stack only: the stack is shared with the raft binding, whose RAFT may block a receiver, so the policy
     * is this binding's).
     */
    static final org.fts.jgroups.JGroupsStack.Binding BINDING = new org.fts.jgroups.JGroupsStack.Binding("jgroups",
            "message_processing_policy=\"" + DirectOrdering.class.getName() + "\"", "");
}
