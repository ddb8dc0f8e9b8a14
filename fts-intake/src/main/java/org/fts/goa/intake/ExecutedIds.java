package org.fts.goa.intake;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The FT requests that executed, remembered after their replies left the {@link ReplyCache}, so that none executes
 * twice: per client, runs of consecutive retention ids, each remembered until the group's time passes the latest
 * {@code until} of its ids.
 *
 * <p>An FT client numbers its requests with one counter, so the ids it executed are a few runs (a gap is a request
 * in flight, or one its client gave up before it was ordered): a client that keeps calling costs a few dozen bytes
 * however many requests it made, and stays remembered while it calls. A client that stopped is forgotten once its
 * newest id's {@code until} passed. Runs are bounded ({@code maxRuns}); past the bound the ones that would be
 * forgotten first go first, counted and logged (only then can a request execute twice).
 *
 * <p>Changed only on the execution path, in delivery order, and every answer is given as of the group's time
 * {@code now} (a run whose {@code until} passed is forgotten, whether or not a sweep removed it yet), so the
 * answers and the written form are the same at every replica at the same position of the order, whenever each
 * swept (clients, and runs within a client, are kept sorted).
 */
public final class ExecutedIds {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(ExecutedIds.class);

    /** A run of consecutive ids {@code first..last}, remembered until {@code until} (group time, ms). */
    private static final class Run {
        long last;
        long until;

        Run(long last, long until) {
            this.last = last;
            this.until = until;
        }
    }

    private final long maxRuns;
    /** By client id, sorted: the written form must not depend on when a client was swept and came back. */
    private final TreeMap<String, TreeMap<Long, Run>> clients = new TreeMap<>();
    private long runs;
    private long forgottenEarly;
    private long nextSweep = Long.MIN_VALUE;

    ExecutedIds(long maxRuns) {
        this.maxRuns = maxRuns;
    }

    /** Whether {@code id} executed and is still remembered at the group's time {@code now}. */
    boolean contains(RequestId id, long now) {
        TreeMap<Long, Run> mine = clients.get(id.clientId());
        if (mine == null) {
            return false;
        }
        Map.Entry<Long, Run> e = mine.floorEntry(id.retentionId());
        return e != null && e.getValue().last >= id.retentionId() && e.getValue().until >= now;
    }

    /** Remembers that {@code id} executed, at least until {@code until}; {@code now} is the group's time. */
    void add(RequestId id, long until, long now) {
        TreeMap<Long, Run> mine = clients.computeIfAbsent(id.clientId(), c -> new TreeMap<>());
        long n = id.retentionId();
        Map.Entry<Long, Run> below = mine.floorEntry(n);
        if (below != null && below.getValue().until < now) {   // forgotten already: never joined to a new run
            mine.remove(below.getKey());
            runs--;
            below = mine.floorEntry(n);
        }
        Run next = mine.get(n + 1);
        if (next != null && next.until < now) {
            mine.remove(n + 1);
            runs--;
        }
        if (below != null && below.getValue().last >= n) {
            below.getValue().until = Math.max(below.getValue().until, until);
            return;
        }
        Run above = mine.get(n + 1);
        if (below != null && below.getValue().last == n - 1) {
            Run r = below.getValue();
            r.last = n;
            r.until = Math.max(r.until, until);
            if (above != null) {   // n closed the gap between two runs
                mine.remove(n + 1);
                r.last = above.last;
                r.until = Math.max(r.until, above.until);
                runs--;
            }
        } else if (above != null) {
            mine.remove(n + 1);
            above.until = Math.max(above.until, until);
            mine.put(n, above);
        } else {
            mine.put(n, new Run(n, until));
            runs++;
        }
        if (runs > maxRuns) {
            sweep(now);
            if (runs > maxRuns) {
                forgetOldest();
            }
        }
    }

    /** Frees the runs whose {@code until} passed {@code now}, at most once per {@code every} ms of group time. */
    void expire(long now, long every) {
        if (now >= nextSweep) {
            nextSweep = now + every;
            sweep(now);
        }
    }

    private void sweep(long now) {
        Iterator<TreeMap<Long, Run>> it = clients.values().iterator();
        while (it.hasNext()) {
            TreeMap<Long, Run> mine = it.next();
            Iterator<Run> rs = mine.values().iterator();
            while (rs.hasNext()) {
                if (rs.next().until < now) {
                    rs.remove();
                    runs--;
                }
            }
            if (mine.isEmpty()) {
                it.remove();
            }
        }
    }

    /** Past the bound: forgets the tenth of the runs that expire first (deterministic: ties by position). */
    private void forgetOldest() {
        long[] untils = new long[(int) Math.min(runs, Integer.MAX_VALUE - 8)];
        int i = 0;
        for (TreeMap<Long, Run> mine : clients.values()) {
            for (Run r : mine.values()) {
                if (i < untils.length) {
                    untils[i++] = r.until;
                }
            }
        }
        Arrays.sort(untils, 0, i);
        long cut = untils[Math.min(i - 1, Math.max(0, (int) (maxRuns / 10)))];
        long before = runs;
        Iterator<TreeMap<Long, Run>> it = clients.values().iterator();
        while (it.hasNext()) {
            TreeMap<Long, Run> mine = it.next();
            mine.values().removeIf(r -> r.until <= cut);
            if (mine.isEmpty()) {
                it.remove();
            }
        }
        runs = 0;
        clients.values().forEach(m -> runs += m.size());
        if (forgottenEarly == 0 || (forgottenEarly + before - runs) / 10_000 != forgottenEarly / 10_000) {
            LOG.error("FT requests remembered past their bound ({} runs of ids, fts.cache.max_entries x {}): forgot "
                    + "{} runs before their time; a late retry of those could execute again", maxRuns,
                    ReplyCache.RUNS_PER_ENTRY, before - runs);
        }
        forgottenEarly += before - runs;
    }

    /** Runs forgotten before their time (the bound was reached). */
    long forgottenEarly() {
        return forgottenEarly;
    }

    long runs() {
        return runs;
    }

    /** Whether nothing is remembered at {@code now}. */
    boolean isEmpty(long now) {
        for (TreeMap<Long, Run> mine : clients.values()) {
            for (Run r : mine.values()) {
                if (r.until >= now) {
                    return false;
                }
            }
        }
        return true;
    }

    void clear() {
        clients.clear();
        runs = 0;
    }

    /** The runs remembered at {@code now}, in order (what a sweep would keep, whether or not one ran). */
    void writeTo(DataOutputStream out, long now) throws IOException {
        sweep(now);
        out.writeInt(clients.size());
        for (Map.Entry<String, TreeMap<Long, Run>> c : clients.entrySet()) {
            out.writeUTF(c.getKey());
            out.writeInt(c.getValue().size());
            for (Map.Entry<Long, Run> r : c.getValue().entrySet()) {
                out.writeLong(r.getKey());
                out.writeLong(r.getValue().last);
                out.writeLong(r.getValue().until);
            }
        }
    }

    /** The runs remembered at {@code now}, as {@link #read} gives them. */
    LinkedHashMap<String, List<long[]>> runs(long now) {
        sweep(now);
        LinkedHashMap<String, List<long[]>> out = new LinkedHashMap<>();
        for (Map.Entry<String, TreeMap<Long, Run>> c : clients.entrySet()) {
            List<long[]> mine = new ArrayList<>(c.getValue().size());
            c.getValue().forEach((first, r) -> mine.add(new long[] {first, r.last, r.until}));
            out.put(c.getKey(), mine);
        }
        return out;
    }

    /** What {@link #writeTo} wrote: {@code [first, last, until]} triples by client, in order. */
    static LinkedHashMap<String, List<long[]>> read(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0) {
            throw new IOException("client count " + n);
        }
        LinkedHashMap<String, List<long[]>> read = new LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            String client = in.readUTF();
            int k = in.readInt();
            if (k < 0 || (long) k * 24 > in.available()) {   // a damaged count allocates nothing
                throw new IOException("a client with " + k + " runs in " + in.available() + " bytes");
            }
            List<long[]> mine = new ArrayList<>(k);
            for (int j = 0; j < k; j++) {
                long first = in.readLong();
                long last = in.readLong();
                long until = in.readLong();
                if (last < first) {
                    throw new IOException("a run " + first + ".." + last);
                }
                mine.add(new long[] {first, last, until});
            }
            read.put(client, mine);
        }
        return read;
    }

    /** Replaces the contents with {@code read} ({@link #read}'s form). */
    void replaceWith(LinkedHashMap<String, List<long[]>> read) {
        clear();
        for (Map.Entry<String, List<long[]>> c : read.entrySet()) {
            TreeMap<Long, Run> mine = new TreeMap<>();
            for (long[] r : c.getValue()) {
                mine.put(r[0], new Run(r[1], r[2]));
            }
            if (!mine.isEmpty()) {
                clients.put(c.getKey(), mine);
                runs += mine.size();
            }
        }
    }
}
