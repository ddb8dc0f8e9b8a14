package org.fts.loadtest.chaos;

import java.util.List;

import org.fts.testkit.ReplicaCluster;

/**
 * The nemesis's hands on real replica processes: SIGKILL, SIGSTOP / SIGCONT, a JGroups DISCARD inserted and
 * removed through the replica's stdin ({@code isolate} / {@code heal}), a restart that does not wait, a plain
 * request to tell whether a replica serves, and, for replicas on distinct addresses, packet drops between
 * them ({@link NetFilter}).
 */
final class ClusterTarget implements Nemesis.Target {
    private final ReplicaCluster cluster;
    private final Probe probe;
    private final NetFilter net;

    /** @param net the packet filter, or null: no network faults (the replicas share one address) */
    ClusterTarget(ReplicaCluster cluster, Probe probe, NetFilter net) {
        this.cluster = cluster;
        this.probe = probe;
        this.net = net;
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
    public void cut(int from, int to) throws Exception {
        net().cut(cluster.hosts().get(from), cluster.hosts().get(to));
    }

    @Override
    public void lossy(int from, int to, int percent) throws Exception {
        net().lossy(cluster.hosts().get(from), cluster.hosts().get(to), percent);
    }

    @Override
    public void restoreNet() throws Exception {
        net().restore();
    }

    private NetFilter net() {
        if (net == null) {
            throw new IllegalStateException("no network faults without --hosts (and iptables)");
        }
        return net;
    }

    @Override
    public boolean serves(int i) {
        return probe.serves(i);
    }
}
