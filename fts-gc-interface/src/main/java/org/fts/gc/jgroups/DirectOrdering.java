package org.fts.gc.jgroups;

import org.jgroups.Message;
import org.jgroups.util.MaxOneThreadPerSender;
import org.jgroups.util.MessageBatch;

/**
 * How FTS's UDP stack hands received messages to the protocols ({@code message_processing_policy}): the ordering
 * traffic is passed up on the thread that received it, everything else as JGroups' default does ({@code max}: at
 * most one pool thread per sender). The ordering traffic is every regular (not OOB) multicast (the sequencer's
 * ORDs, and JGroups' own protocol multicasts) and FTS's acknowledgements ({@link Wire.Ack}, OOB unicasts to the
 * sequencer).
 *
 * <p>Why: a pool thread per received ORD batch, and per acknowledgement at the sequencer, cost a thread wake-up
 * each on the ordering path (measured with {@code bin/fts load}; docs/performance.md). Handling them on the
 * receiver is safe because nothing they lead to can block waiting for a receiver:
 * <ul>
 *   <li>FTS's handlers of them ({@link Member#onOrd}, {@link Sequencer.Acks#onAck}, views) take short monitors
 *       whose holders never wait while holding them, queue deliveries without blocking, and send only messages
 *       that flow control does not hold (acknowledgements, commits: NO_FC);</li>
 *   <li>flow-control credits travel as unicasts, and every unicast other than an acknowledgement is left to the
 *       pool: the sequencer handles a forwarded broadcast (a regular unicast) by multicasting under flow control,
 *       and that thread must not be the one the credits arrive on. JGroups' own {@code direct} policy runs regular
 *       unicasts directly too; FTS does not, for that reason;</li>
 *   <li>JGroups ships the rule for its own protocols' multicasts ({@code message_processing_policy="direct"}).</li>
 * </ul>
 * An acknowledgement is recognised by its bytes ({@link Wire#isAck}); a JGroups message that looked like one would
 * only be handled on the receiver, as JGroups' {@code all-direct} policy handles every message. Tested by the
 * conformance suites on the shipped stacks ({@code JGroupsUdpConformanceTest}: a blocked listener, crashes mid-
 * traffic, partitions) and the chaos harness.
 */
public final class DirectOrdering extends MaxOneThreadPerSender {
    @Override
    public boolean process(Message msg, boolean oob) {
        boolean multicast = msg.getDest() == null;
        if ((!oob && multicast) || (oob && !multicast && isAck(msg))) {
            try {
                tp.passMessageUp(msg, true, multicast, true);
            } catch (Throwable t) {
                log.error("FTS: passing a message up failed", t);
            }
            return true;
        }
        return super.process(msg, oob);
    }

    private static boolean isAck(Message msg) {
        return msg.hasArray() && Wire.isAck(msg.getArray(), msg.getOffset(), msg.getLength());
    }

    @Override
    public boolean process(MessageBatch batch, boolean oob) {
        if (oob || batch.dest() != null) {
            return super.process(batch, oob);
        }
        new BatchHandler(batch, false).run();
        return true;
    }
}
