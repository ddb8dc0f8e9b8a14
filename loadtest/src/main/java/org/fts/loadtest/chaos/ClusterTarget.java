package org.fts.loadtest.chaos;

import java.util.List;

import org.fts.samples.ReplicaCluster;

/**
 * The nemesis's hands on real replica processes: SIGKILL, SIGSTOP / SIGCONT, a JGroups DISCARD inserted and
 * removed through the replica's stdin ({@code isolate} / {@code heal}), a restart that does not wait, and a
 * plain request to tell whether a replica serves.
 */
final class ClusterTarget implements Nemesis.Target {
    private final ReplicaCluster cluster;
    private final Probe probe;

    ClusterTarget(ReplicaCluster cluster, Probe probe) {
        this.cluster = cluster;
        this.probe = probe;
    }

    @Override
    public int size() {
        return cluster.ports().size();
    }

    @Override
    public void kill(int i) throws Exception {
        cluster.kill(i);
    }

    @Override
    public void restart(int i) throws Exception {
        cluster.relaunch(i, List.of());
    }

    @Override
    public boolean running(int i) {
        return cluster.isAlive(i);
    }

    @Override
    public void pause(int i) throws Exception {
        cluster.pause(i);
    }

    @Override
    public void resume(int i) throws Exception {
        cluster.resume(i);
    }

    @Override
    public void isolate(int i) throws Exception {
        cluster.command(i, "isolate");
    }

    @Override
    public void heal(int i) throws Exception {
        cluster.command(i, "heal");
    }

    @Override
    public boolean serves(int i) {
        return probe.serves(i);
    }
}
