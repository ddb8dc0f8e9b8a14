package org.fts.gc.jgroups;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.fts.gc.FailStop;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupConfig;
import org.fts.gc.GroupException;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.internal.DeliveryPump;
import org.fts.gc.internal.Pumps;
import org.fts.jgroups.AddressBook;
import org.fts.jgroups.BoardLink;
import org.fts.jgroups.CommandProbe;
import org.fts.jgroups.GroupSecurity;
import org.fts.jgroups.JGroupsBacked;
import org.fts.jgroups.StatusProbe;
import org.fts.order.DurableLog;
import org.fts.order.OrderStats;
import org.fts.order.Ordering;
import org.fts.order.TotalOrder;
import org.fts.order.OrderStatsMBean;
import org.jgroups.Address;
import org.jgroups.BytesMessage;
import org.jgroups.JChannel;
import org.jgroups.Message;
import org.jgroups.Receiver;
import org.jgroups.util.MessageBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link GroupChannel} over a JGroups {@link JChannel}: JGroups gives membership, failure detection and
 * reliable FIFO multicast and unicast; {@link TotalOrder} builds the total order on them. JGroups' threads
 * only run the protocol and queue deliveries in the {@link DeliveryPump}; the application runs on the pump's
 * thread.
 */
final class JGroupsChannel implements GroupChannel, GroupChannel.Diagnostics, Receiver, JGroupsBacked {
    @Override
    public GroupChannel.Diagnostics diagnostics() {
        return this;
    }

    private static final Logger LOG = LoggerFactory.getLogger(JGroupsChannel.class);
    /** How often a member acknowledges what it has ordered, when traffic alone did not. */
    private static final long ACK_INTERVAL_MS = 100;
    /** How often a coordinator asks again for the recovery reports it misses. */
    private static final long RECOVERY_RETRY_NANOS = 1_000_000_000L;

    private final String stackXml;
    private final javax.crypto.SecretKey groupKey;
    private final GroupConfig config;
    private final MemberId self;
    private volatile ChannelJmx jmx;
    private volatile OrderStats stats;
    private volatile JChannel channel;
    private volatile DeliveryPump pump;
    private volatile TotalOrder order;
    private volatile ScheduledExecutorService timer;
    private volatile View view;
    private final AddressBook addresses = new AddressBook();
    private final BoardLink board;
    /** The read barriers' messages, off JGroups' threads. */
    private final ReadLane readLane;
    /** What the total order sends, as JGroups messages. */
    private final JGroupsTransport transport;
    private volatile boolean closed;
    /** {@code fts.gc.jgroups.stall_timeout} in nanoseconds (0: off). */
    private final long stallNanos;
    private final org.fts.gc.Durability durability;
    private volatile DurableLog disk;
    private final Ordering ordering;
    /** Offload: the thread this member's DATA multicasts run on (flow control may hold them). */
    private volatile java.util.concurrent.ExecutorService sender;

    /** @param groupKey the group's secret key (SYM_ENCRYPT), or null for traffic in the clear */
    JGroupsChannel(String stackXml, GroupConfig config, MemberId self, javax.crypto.SecretKey groupKey,
                   java.time.Duration stallTimeout, org.fts.gc.Durability durability, Ordering ordering) {
        this.ordering = ordering;
        this.durability = durability;
        this.stallNanos = stallTimeout.toNanos();
        this.stackXml = stackXml;
        this.groupKey = groupKey;
        this.config = config;
        this.self = self;
        this.board = new BoardLink(self);
        this.readLane = new ReadLane(self.toString());
        this.transport = new JGroupsTransport(self, addresses, board, stallNanos);
    }

    @Override
    public synchronized void join(String group, GroupListener listener) {
        if (closed || channel != null) {
            throw new GroupException(self + ": a channel joins once");
        }
        DeliveryPump p = new DeliveryPump(self.name(), listener, config.maxBacklog(), () -> {
            TotalOrder o = order;   // null only before the first delivery could be queued
            if (o != null) {
                o.unsynced();
            }
        }, config.replayDelayNanos());
        disk = DurableLog.openFor(durability, group, self);
        p.start();
        pump = p;
        try {
            java.util.concurrent.ExecutorService out = ordering == Ordering.OFFLOAD
                    ? Executors.newSingleThreadExecutor(FailStop.threads("fts-offload-" + self)) : null;
            sender = out;
            order = new TotalOrder(self, config, transport, p, disk, ordering, out == null ? Runnable::run : out);
        } catch (java.io.UncheckedIOException e) {   // a log it cannot trust
            close();
            throw new GroupException(self + ": " + disk + ": " + e.getCause().getMessage(), e);
        }
        try {
            JChannel ch = new JChannel(new ByteArrayInputStream(stackXml.getBytes(StandardCharsets.UTF_8)));
            ch.setName(self.name());
            if (groupKey != null) {
                GroupSecurity.install(ch, groupKey);
            }
            ch.setReceiver(this);
            channel = ch;
            transport.attach(ch);
            ch.connect(group);
        } catch (Exception e) {
            close();
            throw new GroupException(self + ": cannot join group " + group + ": " + e.getMessage(), e);
        }
        long sameName = channel.getView().getMembers().stream().filter(a -> name(a).equals(self)).count();
        if (sameName > 1) {
            close();
            throw new GroupException("member " + self + " is already in group " + group);
        }
        stats = order.stats(ordering);
        jmx = ChannelJmx.register(channel, group + "/" + self.name(), stats);
        board.start(channel);
        ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(FailStop.threads("fts-ack-" + self));
        t.scheduleWithFixedDelay(this::ack, ACK_INTERVAL_MS, ACK_INTERVAL_MS, TimeUnit.MILLISECONDS);
        timer = t;
    }

    private void ack() {
        try {
            order.ackIfMoved();
            order.retryRecovery(System.nanoTime(), RECOVERY_RETRY_NANOS);
            order.readTick(System.nanoTime());
            if (stallNanos > 0) {
                order.watchStalls(System.nanoTime(), stallNanos);
            }
        } catch (RuntimeException e) {
            LOG.debug("{}: ack failed: {}", self, e.toString());
        }
    }

    @Override
    public void abcast(byte[] payload) {
        TotalOrder o = order;
        if (o == null || closed || channel == null) {
            throw new GroupException(self + ": cannot broadcast: channel is " + (closed ? "closed" : "not joined"));
        }
        o.abcast(payload);
    }

    @Override
    public void send(MemberId to, byte[] payload) {
        Address a = addresses.get(to);
        if (a == null) {
            throw new GroupException(to + " is not in the current view of " + self);
        }
        send(a, TotalOrder.direct(payload), "send to " + to);
    }

    @Override
    public void readBarrier(org.fts.gc.ReadBarrier barrier) {
        TotalOrder o = order;
        if (o == null || closed || channel == null) {
            throw new GroupException(self + ": no read barrier: channel is " + (closed ? "closed" : "not joined"));
        }
        o.readBarrier(barrier);
    }

    @Override
    public void synced() {
        TotalOrder o = order;
        if (o != null) {
            o.synced();
        }
    }

    private void send(Address to, byte[] payload, String what) {
        JChannel ch = channel;
        if (ch == null || closed) {
            throw new GroupException(self + ": cannot " + what + ": channel is " + (closed ? "closed" : "not joined"));
        }
        try {
            ch.send(new BytesMessage(to, payload));
        } catch (Exception e) {
            throw new GroupException(self + ": cannot " + what + ": " + e.getMessage(), e);
        }
    }

    @Override
    public MemberId self() {
        return self;
    }

    @Override
    public org.fts.gc.Voters voters() {
        return config.voterSet();
    }

    @Override
    public View view() {
        return view;
    }

    @Override
    public void onDeliveryThread(Runnable task) {
        Pumps.task(pump, closed, self, task);
    }

    @Override
    public boolean isDeliveryThread() {
        return Pumps.isDeliveryThread(pump);
    }

    @Override
    public int pendingDeliveries() {
        return Pumps.pending(pump);
    }

    @Override
    public java.util.Map<String, String> standing() {
        return OrderStats.standing(stats, view);
    }

    @Override
    public void exposeStatus(java.util.function.Supplier<java.util.Map<String, String>> status) {
        StatusProbe.register(channel, this::standing, status);
    }

    @Override
    public void exposeCommands(java.util.function.Function<String, java.util.Map<String, String>> commands) {
        CommandProbe.register(channel, commands);
    }

    @Override
    public org.fts.gc.Whiteboard whiteboard() {
        return board.board();
    }

    @Override
    public boolean replaysItsLog() {
        return durability.log();
    }

    @Override
    public long pendingBytes() {
        return Pumps.pendingBytes(pump);
    }

    @Override
    public long fellBehind() {
        return Pumps.fellBehind(pump);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        transport.close();
        board.stop();
        readLane.close();
        OrderStats st = stats;
        if (st != null && st.getReadsConfirmed() + st.getReadsRefused() > 0) {
            LOG.info("{}: read barriers: {} confirmed, {} refused, {} requests, {} answered as a sequencer", self,
                    st.getReadsConfirmed(), st.getReadsRefused(), st.getReadRequests(), st.getReadRounds());
        }
        ScheduledExecutorService t = timer;
        if (t != null) {
            t.shutdownNow();
        }
        java.util.concurrent.ExecutorService out = sender;
        if (out != null) {
            out.shutdownNow();
        }
        DeliveryPump p = pump;
        if (p != null) {
            p.stop(1000);
        }
        JChannel ch = channel;
        if (ch != null && jmx != null) {
            jmx.unregister(ch);
        }
        if (ch != null) {
            ch.close();
        }
        DurableLog d = disk;
        if (d != null) {
            LOG.info("{}: log closed: {}", self, d.figures().format());
            d.close();
        }
    }

    @Override
    public org.fts.gc.LogFigures logFigures() {
        DurableLog d = disk;
        return d == null ? null : d.figures();
    }

    /** The total order's figures (also over JMX as {@code jgroups:type=fts-order}); null before the join. */
    OrderStatsMBean orderStats() {
        return stats;
    }

    @Override
    public JChannel jchannel() {
        return channel;
    }

    // --- JGroups callbacks (protocol threads): copy and queue, never block ---

    @Override
    public void receive(Message msg) {
        TotalOrder o = order;
        if (o != null && !closed && !board.received(msg)) {
            MemberId src = name(msg.getSrc());
            byte[] bytes = copy(msg);
            if (!readLane.offer(src, bytes, o::receive)) {
                o.receive(src, bytes);
                o.afterBatch();
            }
        }
    }

    /** A batch (JGroups bundles messages of one sender): one acknowledgement for all of it. */
    @Override
    public void receive(MessageBatch batch) {
        TotalOrder o = order;
        if (o == null || closed) {
            return;
        }
        MemberId src = name(batch.sender());
        for (Message msg : batch) {
            if (!board.received(msg)) {
                byte[] bytes = copy(msg);
                if (!readLane.offer(src, bytes, o::receive)) {
                    o.receive(src, bytes);
                }
            }
        }
        o.afterBatch();
    }

    @Override
    public void viewAccepted(org.jgroups.View v) {
        View converted = addresses.install(v, self);
        view = converted;
        board.board().viewChanged(converted);
        order.viewChanged(converted);
    }

    private static byte[] copy(Message msg) {
        byte[] array = msg.getArray();
        if (array == null) {
            return new byte[0];
        }
        int off = msg.getOffset();
        int len = msg.getLength();
        if (off == 0 && len == array.length) {
            return array;
        }
        byte[] out = new byte[len];
        System.arraycopy(array, off, out, 0, len);
        return out;
    }

    private static MemberId name(Address a) {
        return AddressBook.name(a);
    }

    @Override
    public String toString() {
        TotalOrder o = order;
        return "JGroupsChannel[" + self + (o == null ? "" : " " + o.describe()) + "]";
    }
}
