package org.fts.chaos;

import org.fts.process.Waits;
import java.time.Duration;
import java.util.Properties;
import java.util.stream.IntStream;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.samples.Clients;
import org.fts.testkit.ReplicaCluster;
import org.omg.CORBA.ORB;

/**
 * Plain CORBA requests to one replica at a time (a corbaloc naming only it, no FT interceptor, no retries):
 * whether it serves, and its counter's value. Every request is bounded by a 3 s reply timeout, so a paused
 * or cut-off replica costs at most that.
 */
final class Probe implements AutoCloseable {
    private final ORB orb;
    private final String[] corbalocs;
    private final Counter[] counters;

    Probe(ReplicaCluster cluster) {
        Properties p = Clients.orbDefaults();
        p.setProperty("jacorb.retries", "0");
        p.setProperty("jacorb.connection.client.pending_reply_timeout", "3000");
        p.setProperty("OAIAddr", "127.0.0.1");
        orb = ORB.init(new String[0], p);
        corbalocs = new String[cluster.ports().size()];
        for (int i = 0; i < corbalocs.length; i++) {
            corbalocs[i] = Clients.corbaloc(cluster.hosts().get(i), cluster.ports().get(i), cluster.group(), "counter");
        }
        counters = new Counter[corbalocs.length];
    }

    /**
     * Replica {@code i}'s counter, or null if it does not answer (down, hung, in a minority, fetching state).
     * After a failure the reference is made again: the replica may be a new process on the same port.
     */
    synchronized Integer value(int i) {
        try {
            if (counters[i] == null) {
                // unchecked: a checked narrow would ask the replica, which may be down
                counters[i] = CounterHelper.unchecked_narrow(orb.string_to_object(corbalocs[i]));
            }
            return counters[i].value();
        } catch (RuntimeException e) {
            counters[i] = null;
            return null;
        }
    }

    boolean serves(int i) {
        return value(i) != null;
    }

    /**
     * Waits until every replica serves, and keeps serving on every probe for {@code steady}; returns the
     * {@code System.nanoTime()} that steady stretch began, or -1 past {@code bound}. One round of answers is not
     * enough: a replica cut off just before the faults ended may answer from its old view until failure
     * detection excludes it, and only then fetch the state.
     */
    long awaitEveryReplicaServes(Duration bound, Duration steady) {
        long[] since = {-1};
        long found = Waits.until(() -> {
            if (!IntStream.range(0, corbalocs.length).allMatch(this::serves)) {
                since[0] = -1;
                return false;
            }
            if (since[0] < 0) {
                since[0] = System.nanoTime();
            }
            return System.nanoTime() - since[0] >= steady.toNanos();
        }, bound);
        return found < 0 ? -1 : since[0];
    }

    /** Replica {@code i}'s counter, asked until it answers (at most {@code bound}); null if it never did. */
    Integer valueWithin(int i, Duration bound) {
        Integer[] v = {null};
        Waits.until(() -> (v[0] = value(i)) != null, bound);
        return v[0];
    }

    @Override
    public void close() {
        orb.shutdown(false);
    }
}
