package org.fts.gc.internal;

import org.fts.gc.MemberId;

/**
 * What a binding's {@code GroupChannel} answers from its {@link DeliveryPump}, which is null until the channel joins.
 */
public final class Pumps {
    private Pumps() {
    }

    /** {@code GroupChannel.pendingDeliveries} for a binding whose channel has {@code pump} (null before join). */
    public static int pending(DeliveryPump pump) {
        return pump == null ? 0 : pump.pending();
    }

    /** {@code GroupChannel.pendingBytes} for a binding whose channel has {@code pump} (null before join). */
    public static long pendingBytes(DeliveryPump pump) {
        return pump == null ? 0 : pump.pendingBytes();
    }

    /** {@code GroupChannel.fellBehind} for a binding whose channel has {@code pump} (null before join). */
    public static long fellBehind(DeliveryPump pump) {
        return pump == null ? 0 : pump.sheds()[0];
    }

    /**
     * {@code GroupChannel.onDeliveryThread} for a binding whose channel has {@code pump} (null before join):
     * queues {@code task}, or fails as a channel that is not joined or is closed must.
     */
    public static void task(DeliveryPump pump, boolean closed, MemberId self, Runnable task) {
        if (pump == null || closed) {
            throw new org.fts.gc.GroupException(self + ": no delivery thread: channel is "
                    + (closed ? "closed" : "not joined"));
        }
        pump.task(task);
    }

    /** {@code GroupChannel.isDeliveryThread} for a binding whose channel has {@code pump} (null before join). */
    public static boolean isDeliveryThread(DeliveryPump pump) {
        return pump != null && pump.isDeliveryThread();
    }
}
