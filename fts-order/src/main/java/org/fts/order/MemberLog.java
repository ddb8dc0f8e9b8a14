package org.fts.order;

import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.fts.gc.MemberId;
import org.fts.order.Wire.Entry;

/**
 * What a {@link Member} keeps on disk with {@code fts.durability=log} (docs/durability.md): its entries, its
 * {@link DurableLog.EpochMeta}, its checkpoints. {@link DurableLog} keeps them in files; the protocol simulator keeps
 * a model of them, so that its crashes lose exactly what a sync had not made durable.
 *
 * <p>Guarantees every implementation gives: {@link #append} returns at once and the entry becomes durable later, in
 * order, after which {@link #durable()} covers it and the callback given to {@link #start} runs; {@link #writeMeta},
 * {@link #truncateAfter}, {@link #restartAt} and {@link #repair} are durable when they return; an I/O failure stops the
 * replica ({@link org.fts.gc.FailStop}) rather than let it acknowledge what the disk may not hold.
 */
public interface MemberLog extends AutoCloseable {
    /**
     * Entries {@code from}..{@code to} that the log holds but cannot verify (a damaged disk): {@code origin} and
     * {@code oseq} are the entry's identity when its record still says it (one entry), else null and 0.
     */
    record Damaged(long from, long to, MemberId origin, long oseq) {
    }

    /** What the log held when it was opened. */
    DurableLog.Loaded loaded();

    /** Starts making entries durable; {@code onDurable} runs after each sync that made more of them durable. */
    void start(Runnable onDurable);

    /** Queues {@code e} (the next gseq), recorded with {@code commitHint}, a commit point known when it was held. */
    void append(Entry e, long commitHint);

    /** The last gseq the disk holds. */
    long durable();

    /** Durably drops every entry after {@code gseq}. */
    void truncateAfter(long gseq);

    /** The entries in ({@code from}, {@code upTo}] the log holds and can verify. */
    List<Entry> read(long from, long upTo);

    /** The last entry this log cannot give for a repair; compaction keeps what follows until {@link #unpin}. */
    long pinBase();

    void unpin();

    /** Drops every entry: the history restarts after {@code position}, whose marks are {@code marks}. */
    void restartAt(long position, Map<MemberId, Long> marks, boolean initial);

    /** Persists the application's state at {@code position}, then calls {@code done} with whether it was written. */
    void checkpoint(long position, Map<MemberId, Long> marks, byte[] state, Consumer<Boolean> done);

    /** The log's growth, in bytes of payload, after which the member offers a checkpoint. */
    long checkpointEvery();

    /** Writes {@code m} durably. */
    void writeMeta(DurableLog.EpochMeta m);

    /**
     * An epoch opened on reports that counted what this log may have held after a power loss
     * ({@link DurableLog.Loaded#uncertainFrom}): forgets it, durably.
     */
    void settleUncertain();

    /**
     * The longest read lease ({@code fts.reads.lease}, in nanoseconds) an incarnation of this replica may have granted;
     * 0 if none ({@link LeaseFile}).
     */
    long leaseOnRecord();

    /** Records {@code nanos} as the longest read lease this replica may grant, durably, before it returns. */
    void recordLease(long nanos);

    /**
     * Rewrites damaged entries from copies that verify elsewhere, durably; copies of entries that are not damaged are
     * ignored. Returns what is still damaged.
     */
    List<Damaged> repair(List<Entry> copies);

    /** Figures for operators: syncs, records per sync, sync time percentiles, bytes on disk. */
    org.fts.gc.LogFigures figures();

    @Override
    void close();
}
