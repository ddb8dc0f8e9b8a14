package org.fts.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Predicate;

import org.fts.gc.Epoch;
import org.fts.gc.GroupListener;
import org.fts.gc.MemberId;
import org.fts.gc.View;

/**
 * A {@link GroupListener} that records what it is given (payloads as UTF-8 text) and lets a test wait, with a
 * bound, until it has been given enough. An optional hook runs on the delivery thread after each broadcast is
 * recorded (to block, or to broadcast from the callback).
 */
public final class Recorder implements GroupListener {
    /** One delivery: who sent it and what it said. */
    public record Delivery(MemberId sender, String text) {
        @Override
        public String toString() {
            return text;
        }
    }

    private final List<Delivery> delivered = new ArrayList<>();
    private final List<Delivery> received = new ArrayList<>();
    private final List<View> views = new ArrayList<>();
    private final List<Epoch> epochs = new ArrayList<>();
    private final List<String> notPrimary = new ArrayList<>();
    private final BiConsumer<MemberId, String> onDeliver;

    public Recorder() {
        this((s, t) -> { });
    }

    public Recorder(BiConsumer<MemberId, String> onDeliver) {
        this.onDeliver = onDeliver;
    }

    @Override
    public void deliver(MemberId sender, byte[] payload) {
        String text = new String(payload, StandardCharsets.UTF_8);
        synchronized (this) {
            delivered.add(new Delivery(sender, text));
            notifyAll();
        }
        onDeliver.accept(sender, text);
    }

    @Override
    public synchronized void receive(MemberId sender, byte[] payload) {
        received.add(new Delivery(sender, new String(payload, StandardCharsets.UTF_8)));
        notifyAll();
    }

    @Override
    public synchronized void viewAccepted(View view) {
        views.add(view);
        notifyAll();
    }

    @Override
    public synchronized void epochOpened(Epoch epoch) {
        epochs.add(epoch);
        notifyAll();
    }

    @Override
    public synchronized void notPrimary(View view, String reason) {
        notPrimary.add(view.id() + ": " + reason);
        notifyAll();
    }

    public synchronized List<Epoch> epochs() {
        return new ArrayList<>(epochs);
    }

    public synchronized Epoch lastEpoch() {
        return epochs.isEmpty() ? null : epochs.get(epochs.size() - 1);
    }

    public synchronized List<String> notPrimaryReasons() {
        return new ArrayList<>(notPrimary);
    }

    /** The recorded epochs; for predicates passed to {@link #awaitState}. */
    public List<Epoch> epochsUnsafe() {
        return epochs;
    }

    /** The recorded not-primary reasons; for predicates passed to {@link #awaitState}. */
    public List<String> notPrimaryUnsafe() {
        return notPrimary;
    }

    public synchronized List<Delivery> delivered() {
        return new ArrayList<>(delivered);
    }

    public synchronized List<Delivery> received() {
        return new ArrayList<>(received);
    }

    public synchronized List<View> views() {
        return new ArrayList<>(views);
    }

    public synchronized View lastView() {
        return views.isEmpty() ? null : views.get(views.size() - 1);
    }

    public synchronized int deliveredCount() {
        return delivered.size();
    }

    /** Waits until at least {@code n} broadcasts were delivered. */
    public void awaitDelivered(int n, Duration timeout) {
        awaitState(r -> r.delivered.size() >= n, timeout, () -> n + " deliveries (have " + delivered.size() + ")");
    }

    /** Waits until the latest view satisfies {@code p}. */
    public void awaitView(Predicate<View> p, Duration timeout, String what) {
        awaitState(r -> !r.views.isEmpty() && p.test(r.views.get(r.views.size() - 1)), timeout,
                () -> what + " (latest view " + lastView() + ")");
    }

    /** Waits until {@code p} holds over this recorder's state; {@code p} runs under the recorder's lock. */
    public synchronized void awaitState(Predicate<Recorder> p, Duration timeout,
                                        java.util.function.Supplier<String> what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!p.test(this)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what.get());
            }
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what.get());
            }
        }
    }

    /** The recorded broadcasts; for predicates passed to {@link #awaitState}. */
    public List<Delivery> deliveredUnsafe() {
        return delivered;
    }

    /** The recorded direct messages; for predicates passed to {@link #awaitState}. */
    public List<Delivery> receivedUnsafe() {
        return received;
    }
}
