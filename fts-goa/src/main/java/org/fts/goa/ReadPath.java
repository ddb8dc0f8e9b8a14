package org.fts.goa;

import org.fts.goa.intake.CastPath;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.Reply;
import org.fts.goa.intake.Request;
import org.fts.goa.intake.RequestIntake;
import org.fts.goa.intake.Standing;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import org.fts.gc.FailStop;
import org.fts.gc.GroupChannel;
import org.fts.gc.GroupException;
import org.fts.gc.ReadBarrier;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.INTERNAL;
import org.omg.PortableServer.Servant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stages 5r-8r, for a declared read at the replica that received it (docs/reads.md): instead of the cast, the group
 * layer's read barrier ({@link GroupChannel#readBarrier}); once it is ready, on the delivery thread, the read
 * executes on its object's lane behind everything delivered before, here only, and its reply is not cached. A
 * refused barrier sends the read down the ordinary path: cast, ordered, executed everywhere. Nothing blocks here:
 * the future completes with the reply (or fails, like a cast request's, when the replica stops serving).
 */
final class ReadPath implements RequestIntake.Reads {
    private static final Logger LOG = LoggerFactory.getLogger(ReadPath.class);

    private final String self;
    private final GroupChannel channel;
    private final Replay replay;
    private final Map<ObjectKey, Servant> objects;
    private final ExecutionLanes lanes;
    private final Standing standing;
    private final CastPath castPath;
    private final ReadOperations declared;
    /** Null, or the state's digest: {@code fts.reads.check}. */
    private final Supplier<String> digest;
    private final LongAdder local = new LongAdder();
    private final LongAdder ordered = new LongAdder();

    ReadPath(String self, GroupChannel channel, Replay replay, Map<ObjectKey, Servant> objects, ExecutionLanes lanes,
             Standing standing, CastPath castPath, ReadOperations declared, Supplier<String> digest) {
        this.self = self;
        this.channel = channel;
        this.replay = replay;
        this.objects = objects;
        this.lanes = lanes;
        this.standing = standing;
        this.castPath = castPath;
        this.declared = declared;
        this.digest = digest;
    }

    /** Whether {@code operation} on {@code oid} is a declared read. */
    @Override
    public boolean isRead(byte[] oid, String operation) {
        return declared.isRead(oid, operation, objects.get(new ObjectKey(oid)));
    }

    /** Reads executed here after a barrier, and reads whose barrier was refused (ordered instead). */
    long[] counts() {
        return new long[] {local.sum(), ordered.sum()};
    }

    /** Executes the declared read {@code r} here once linearizable, or orders it. */
    @Override
    public CompletableFuture<Reply> read(Request r) {
        CompletableFuture<Reply> done = new CompletableFuture<>();
        ObjectKey key = new ObjectKey(r.objectId());
        try {
            channel.readBarrier(new ReadBarrier() {
                @Override
                public void ready() {
                    if (digest == null) {
                        lanes.execute(key, () -> execute(r, key, done));
                    } else {
                        lanes.atCut(() -> checked(r, key, done));
                    }
                }

                @Override
                public void refused(String why) {
                    LOG.debug("{}: read {} is ordered: {}", self, r.operation(), why);
                    order(r, done);
                }
            });
        } catch (GroupException e) {
            done.completeExceptionally(new IllegalStateException("replica " + self + ": " + e.getMessage()));
        }
        return done;
    }

    private void execute(Request r, ObjectKey key, CompletableFuture<Reply> done) {
        String why = standing.notServing();
        if (why != null || !standing.current()) {   // its state may be behind the barrier's position: not read here
            done.completeExceptionally(new IllegalStateException("replica " + self + " "
                    + (why != null ? why : "is fetching the group's state")));
            return;
        }
        local.increment();
        done.complete(replay.execute(r, objects.get(key)));
    }

    /** {@code fts.reads.check}: at a cut of every lane, the state's digest must not change across the read. */
    private void checked(Request r, ObjectKey key, CompletableFuture<Reply> done) {
        String before = digest.get();
        CompletableFuture<Reply> read = new CompletableFuture<>();
        execute(r, key, read);
        if (!read.isDone() || read.isCompletedExceptionally()) {
            read.whenComplete((reply, failure) -> done.completeExceptionally(failure));
            return;
        }
        if (before.equals(digest.get())) {
            done.complete(read.join());
            return;
        }
        String what = "declared read " + r.operation() + " on object " + key + " changed its state (fts.reads.check): "
                + "the servant's bug; this replica's state now differs from the group's";
        done.complete(replay.system(r, new INTERNAL("FTS: " + what, 0, CompletionStatus.COMPLETED_YES)));
        FailStop.fatal(new IllegalStateException(what));
    }

    /**
     * The barrier was refused: the read goes down the ordinary path, cast from the delivery thread (a group callback
     * may broadcast), past the doorway: a long doorway opens only when this replica's own batch is delivered, here.
     */
    private void order(Request r, CompletableFuture<Reply> done) {
        ordered.increment();
        try {
            castPath.cast(r, castPath.pastTheDoorway()).whenComplete((reply, failure) -> {
                if (failure != null) {
                    done.completeExceptionally(failure);
                } else {
                    done.complete(reply);
                }
            });
        } catch (RuntimeException e) {
            done.completeExceptionally(e);
        }
    }
}
