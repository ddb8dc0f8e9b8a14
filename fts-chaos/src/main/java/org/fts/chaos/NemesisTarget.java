package org.fts.chaos;

/**
 * What the {@link Nemesis} acts on: the replicas (a {@code ReplicaCluster} in a run, a fake in tests). Every method is
 * bounded: it returns, or throws, within seconds.
 */
public interface NemesisTarget {
    int size();

    void kill(int i) throws Exception;

    /** Starts a replica that is not running again, without waiting for it to serve. */
    void restart(int i) throws Exception;

    boolean running(int i);

    void pause(int i) throws Exception;

    void resume(int i) throws Exception;

    void isolate(int i) throws Exception;

    void heal(int i) throws Exception;

    /** Drops every packet from replica {@code from} to replica {@code to}, until {@link #restoreNet}. */
    void cut(int from, int to) throws Exception;

    /** Drops {@code percent} % of the packets from replica {@code from} to {@code to}, until restoreNet. */
    void lossy(int from, int to, int percent) throws Exception;

    /** Ends every {@link #cut} and {@link #lossy}. */
    void restoreNet() throws Exception;

    /** Whether replica {@code i} answers a request now (bounded: returns within a few seconds). */
    boolean serves(int i);

    /** How far replica {@code i}'s log reaches now: a mark {@link #damageLog} can damage what was logged after. */
    DiskDamage.Mark markLog(int i) throws Exception;

    /**
     * Damages the log of replica {@code i}, which is not running: flips one byte {@code percent} % of the way into what
     * it logged after {@code since} (or, if null, into its newest segment), and tears {@code tear} bytes off the end
     * of its newest segment (0: none). Returns what it did.
     */
    String damageLog(int i, DiskDamage.Mark since, int percent, int tear) throws Exception;

    /**
     * Plays a power loss on the log of replica {@code i}, which is not running ({@link PowerLoss}): what was not synced
     * is gone, the sync mark lags, and with {@code damage} the batch synced last is damaged. {@code seed} draws the
     * tear. Returns the last index it had synced and what was done.
     */
    PowerLoss.Result powerLoss(int i, boolean damage, long seed) throws Exception;

    /** Shrinks replica {@code i}'s log volume to what it holds now and a little more: it fills soon. */
    void fillVolume(int i) throws Exception;

    /** Grows replica {@code i}'s log volume back to its full size. */
    void growVolume(int i) throws Exception;

    /** The replica id replica {@code i} runs under now ({@code r<i>} unless {@link #relaunchAs} changed it). */
    default String id(int i) {
        return "r" + i;
    }

    /** Starts replica {@code i}, which is not running, under the new replica id {@code id}, without waiting. */
    default void relaunchAs(int i, String id) throws Exception {
        throw new UnsupportedOperationException("this target cannot replace a replica");
    }

    /**
     * Asks the group's leader to change the voters ({@code add <id>} or {@code remove <id>}: bin/fts members) and
     * returns the voters after it; throws with the group's reason when it is refused or fails (bounded: 45 s).
     */
    default String changeVoters(String change) throws Exception {
        throw new UnsupportedOperationException("this target cannot change the voters");
    }

    /** The voters as a replica that answers names them (comma-separated; bin/fts members list); throws if none does. */
    default String voters() throws Exception {
        throw new UnsupportedOperationException("this target has no voters to list");
    }
}
