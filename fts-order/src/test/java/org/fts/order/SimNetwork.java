package org.fts.order;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.fts.gc.MemberId;

/**
 * The protocol simulator's network ({@link ProtocolSimulator}): for each directed link between two replicas,
 * three queues, as JGroups keeps them apart: unicasts and control messages (UNICAST3: FIFO), multicasts
 * (NAKACK2: FIFO, but not with the unicasts) and urgent messages (OOB: any order, overtaking both). A
 * connectivity matrix says which links carry messages now; a cut link keeps its queue (JGroups retransmits
 * once it heals). Nothing is lost here but by {@link #truncate} (the sender installed a view without the
 * receiver) and {@link #clear} (a crash).
 */
final class SimNetwork {
    enum Kind { UNICAST, MULTICAST, URGENT }

    /** A message in flight; {@code to} is one incarnation: a later one of the same replica drops it. */
    record Msg(MemberId from, MemberId to, Kind kind, byte[] bytes) {
    }

    /** A queue that may deliver: the link from {@code from} to {@code to}, queue {@code kind}. */
    record Queue(int from, int to, Kind kind) {
    }

    private final int n;
    private final boolean[][] up;
    private final List<List<ArrayDeque<Msg>>> queues = new ArrayList<>();   // [from * n + to][kind]

    SimNetwork(int n) {
        this.n = n;
        this.up = new boolean[n][n];
        for (int i = 0; i < n * n; i++) {
            List<ArrayDeque<Msg>> kinds = new ArrayList<>();
            for (int k = 0; k < Kind.values().length; k++) {
                kinds.add(new ArrayDeque<>());
            }
            queues.add(kinds);
        }
        heal();
    }

    private ArrayDeque<Msg> queue(int from, int to, Kind kind) {
        return queues.get(from * n + to).get(kind.ordinal());
    }

    void send(int from, int to, Msg m) {
        queue(from, to, m.kind()).add(m);
    }

    boolean up(int from, int to) {
        return up[from][to];
    }

    /** Queues that hold a message on a link that is up, between the replicas {@code live} says are up. */
    List<Queue> deliverable(boolean[] live) {
        List<Queue> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if (i != j && up[i][j] && live[i] && live[j]) {
                    for (Kind k : Kind.values()) {
                        if (!queue(i, j, k).isEmpty()) {
                            out.add(new Queue(i, j, k));
                        }
                    }
                }
            }
        }
        return out;
    }

    /** The next message of {@code q}: the head of a FIFO queue, any message of the urgent one. */
    Msg take(Queue q, Random rnd) {
        ArrayDeque<Msg> d = queue(q.from(), q.to(), q.kind());
        if (q.kind() != Kind.URGENT || d.size() == 1) {
            return d.poll();
        }
        List<Msg> all = new ArrayList<>(d);
        Msg m = all.remove(rnd.nextInt(all.size()));
        d.clear();
        d.addAll(all);
        return m;
    }

    boolean isEmpty(Queue q) {
        return queue(q.from(), q.to(), q.kind()).isEmpty();
    }

    /** A crash: everything in flight to or from {@code replica} is lost. */
    void clear(int replica) {
        for (int j = 0; j < n; j++) {
            for (Kind k : Kind.values()) {
                queue(replica, j, k).clear();
                queue(j, replica, k).clear();
            }
        }
    }

    /**
     * The sender installed a view without the receiver: JGroups stops retransmitting to it, so of what waits on
     * the link only a prefix (what was on the wire) may still arrive. Returns how many messages were dropped.
     */
    int truncate(int from, int to, Random rnd) {
        int dropped = 0;
        for (Kind k : Kind.values()) {
            ArrayDeque<Msg> d = queue(from, to, k);
            int keep = rnd.nextInt(d.size() + 1);
            while (d.size() > keep) {
                d.pollLast();
                dropped++;
            }
        }
        return dropped;
    }

    int pending() {
        int total = 0;
        for (List<ArrayDeque<Msg>> kinds : queues) {
            for (ArrayDeque<Msg> d : kinds) {
                total += d.size();
            }
        }
        return total;
    }

    void heal() {
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                up[i][j] = true;
            }
        }
    }

    private void cut(int a, int b) {
        up[a][b] = false;
        up[b][a] = false;
    }

    /**
     * A new connectivity, at random: all connected; one replica isolated; a bridge (two replicas cut from each
     * other, both reaching the rest); a one-way cut; two sides; or any asymmetric matrix. Returns its description.
     */
    String reshape(Random rnd) {
        heal();
        int a = rnd.nextInt(n);
        int b = (a + 1 + rnd.nextInt(n - 1)) % n;
        switch (rnd.nextInt(6)) {
            case 0:
                return "all connected";
            case 1:
                for (int j = 0; j < n; j++) {
                    if (j != a) {
                        cut(a, j);
                    }
                }
                return "r" + a + " isolated";
            case 2:
                cut(a, b);
                return "bridge: r" + a + " and r" + b + " cut from each other";
            case 3:
                up[a][b] = false;
                return "one-way: r" + a + " -> r" + b + " cut";
            case 4: {
                boolean[] side = new boolean[n];
                for (int i = 0; i < n; i++) {
                    side[i] = rnd.nextBoolean();
                }
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++) {
                        if (side[i] != side[j]) {
                            up[i][j] = false;
                        }
                    }
                }
                return "sides " + matrix();
            }
            default:
                for (int i = 0; i < n; i++) {
                    for (int j = 0; j < n; j++) {
                        if (i != j && rnd.nextInt(10) < 3) {
                            up[i][j] = false;
                        }
                    }
                }
                return "asymmetric " + matrix();
        }
    }

    /** The links that are up, one row per sender: "r0->{1,2}". */
    String matrix() {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : " ").append('r').append(i).append("->{");
            boolean first = true;
            for (int j = 0; j < n; j++) {
                if (i != j && up[i][j]) {
                    sb.append(first ? "" : ",").append(j);
                    first = false;
                }
            }
            sb.append('}');
        }
        return sb.toString();
    }

    /** One message, for the schedule: its type and the fields that matter. */
    static String describe(byte[] bytes) {
        Wire.Msg m = Wire.decode(bytes);
        if (m instanceof Wire.Fwd f) {
            return "FWD o=" + f.oseq() + " firstUnacked=" + f.firstUnacked() + " " + text(f.payload());
        } else if (m instanceof Wire.Ord o) {
            return "ORD e=" + o.epochView() + " g=" + o.e().gseq() + " c=" + o.committed() + " s=" + o.stable() + " "
                    + text(o.e().payload());
        } else if (m instanceof Wire.Ack a) {
            return "ACK e=" + a.epochView() + " held=" + a.held();
        } else if (m instanceof Wire.Commit c) {
            return "COMMIT e=" + c.epochView() + " c=" + c.committed() + (c.sequencerHolds() > 0 ? " holds=" + c.sequencerHolds() : "");
        } else if (m instanceof Wire.StateReq r) {
            return "STATE_REQ v=" + r.view();
        } else if (m instanceof Wire.State s) {
            Wire.Opened e = s.epoch();
            return "STATE v=" + s.view() + (s.fresh() ? " fresh" : "") + (s.synced() ? " synced" : " unsynced")
                    + (e == null ? " epoch=none" : " epoch=" + e.id() + (e.founding() ? " founding" : "") + " start="
                    + e.start() + (e.lineage().isEmpty() ? "" : " of " + e.lineage().get(0).epoch()))
                    + " last=" + s.last() + " commit=" + s.commit() + " base=" + s.base() + (s.damaged().isEmpty() ? "" : " damaged=" + s.damaged());
        } else if (m instanceof Wire.SendRepair r) {
            return "SEND_REPAIR v=" + r.view() + " to " + r.target() + " (" + r.from() + "," + r.upTo() + "]";
        } else if (m instanceof Wire.Repair r) {
            return "REPAIR v=" + r.view() + " " + r.entries().size() + " entries"
                    + (r.entries().isEmpty() ? "" : " from " + r.entries().get(0).gseq());
        } else if (m instanceof Wire.EpochMsg e) {
            return "EPOCH v=" + e.view() + " start=" + e.start()
                    + (e.lineage().isEmpty() ? "" : " of " + e.lineage().get(0).epoch())
                    + (e.gap() ? " gap" : "")
                    + (e.refound() ? " refound" : "") + (e.provider() == null ? "" : " provider=" + e.provider());
        } else if (m instanceof Wire.NotPrimary np) {
            return "NOT_PRIMARY v=" + np.view();
        }
        return m.getClass().getSimpleName();
    }

    private static String text(byte[] payload) {
        return new String(payload, java.nio.charset.StandardCharsets.UTF_8);
    }
}
