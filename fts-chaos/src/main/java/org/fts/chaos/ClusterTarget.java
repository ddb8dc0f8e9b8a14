package org.fts.chaos;

import java.nio.file.Path;
import java.util.List;

import org.fts.testkit.ReplicaCluster;

/**
 * The nemesis's hands on real replica processes: SIGKILL, SIGSTOP / SIGCONT, a JGroups DISCARD inserted and
 * removed through the replica's stdin ({@code isolate} / {@code heal}), a restart that does not wait, a plain
 * request to tell whether a replica serves, and, for replicas on distinct addresses, packet drops between
 * them ({@link NetFilter}); damage to a stopped replica's log ({@link DiskDamage}) and a volume that fills ({@link
 * Volumes}).
 */
final class ClusterTarget implements NemesisTarget {
    private final ReplicaCluster cluster;
    private final Probe probe;
    private final NetFilter net;
    private final Path groupDir;
    private final Volumes volumes;
    /** The raft binding: its log is jgroups-raft's, synced inside jgroups-raft's own file layer. */
    private final boolean raft;

    /**
     * @param net      the packet filter, or null: no network faults (the replicas share one address)
     * @param groupDir the replicas' logs, {@code <fts.durability.dir>/<group>} (null without a log)
     * @param volumes  each replica's log volume, or null: no full disks
     * @param raft     the replicas run the raft binding
     */
    ClusterTarget(ReplicaCluster cluster, Probe probe, NetFilter net, Path groupDir, Volumes volumes, boolean raft) {
        this.raft = raft;
        this.cluster = cluster;
        this.probe = probe;
        this.net = net;
        this.groupDir = groupDir;
        this.volumes = volumes;
    }

    @Override
    public String id(int i) {
        return cluster.id(i);
    }

    @Override
    public void relaunchAs(int i, String id) throws Exception {
        cluster.relaunchAs(i, id);
    }

    /** Through the probe port of the replica whose status says {@code role=leader} (unsigned: no passcode here). */
    @Override
    public String changeVoters(String change) throws Exception {
        String[] c = change.split(" ");
        String key = ("add".equals(c[0]) ? "fts-members-add=" : "fts-members-remove=") + c[1];
        for (int i = 0; i < size(); i++) {
            java.util.Map<String, String> status = cluster.isAlive(i) ? cluster.probe(i, "fts", 3000) : null;
            if (status != null && "leader".equals(status.get("role"))) {
                java.util.Map<String, String> answer = cluster.probe(i, key, 45_000);
                if (answer == null) {
                    throw new IllegalStateException(id(i) + " did not answer " + change);
                }
                String error = answer.getOrDefault("members.error", answer.get("error"));
                if (error != null) {
                    throw new IllegalStateException(id(i) + ": " + error);
                }
                return answer.get("members.voters");
            }
        }
        throw new IllegalStateException("no replica is the raft leader now");
    }

    @Override
    public String voters() throws Exception {
        for (int i = 0; i < size(); i++) {
            java.util.Map<String, String> list = cluster.isAlive(i) ? cluster.probe(i, "fts-members-list", 3000) : null;
            if (list != null && list.get("members.voters") != null) {
                return list.get("members.voters");
            }
        }
        throw new IllegalStateException("no replica lists the voters now");
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

    @Override
    public DiskDamage.Mark markLog(int i) throws Exception {
        return DiskDamage.mark(replicaDir(i));
    }

    @Override
    public String damageLog(int i, DiskDamage.Mark since, int percent, int tear) throws Exception {
        if (cluster.isAlive(i)) {
            throw new IllegalStateException("r" + i + " is running: its log is damaged only while it is down");
        }
        return DiskDamage.damage(replicaDir(i), since, percent, tear);
    }

    @Override
    public PowerLoss.Result powerLoss(int i, boolean damage, long seed) throws Exception {
        if (cluster.isAlive(i)) {
            throw new IllegalStateException("r" + i + " is running: a power loss is played on its log once it is down");
        }
        if (raft) {
            // jgroups-raft syncs each append before it is acknowledged (fts.durability=log), inside its own file layer:
            // what a kill -9 left is what it synced and at most the append then in flight, one of the outcomes a power
            // loss allows. No layer here can drop that append, nor damage what raft cannot detect (docs/durability.md).
            return new PowerLoss.Result(-1, "raft: the log as jgroups-raft synced it, nothing dropped or damaged");
        }
        return PowerLoss.apply(replicaDir(i), damage, new java.util.Random(seed));
    }

    @Override
    public void fillVolume(int i) throws Exception {
        volumes().fill(i);
    }

    @Override
    public void growVolume(int i) throws Exception {
        volumes().grow(i);
    }

    private Path replicaDir(int i) {
        if (groupDir == null) {
            throw new IllegalStateException("no log to damage without --durability log");
        }
        return groupDir.resolve("r" + i);
    }

    private Volumes volumes() {
        if (volumes == null) {
            throw new IllegalStateException("no volume to fill (the diskfull nemesis mounts them at the start)");
        }
        return volumes;
    }
}
