package org.fts.loadtest.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.fts.gc.GroupChannel;
import org.fts.jgroups.JGroupsBacked;

/**
 * Each member's share of a {@link GcBench} run's work, the members all in one JVM: the bytes its JGroups transport
 * sent (messages as handed to the transport: a multicast counts once, whatever the transport does with it; the
 * transport's statistics are switched on at the first sample), and
 * the CPU of the threads that carry its name (JGroups names its threads after the member, FTS's delivery threads
 * too; threads named after no member, e.g. jgroups-raft's runner, are counted apart). The figure that matters is
 * the ordering member's share against the others' mean: 1 is fair; the seed measured SEQUENCER's unfairness so.
 */
final class MemberShares {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    /** Bytes sent (-1: not a JGroups-backed channel) and thread CPU per member, and CPU of no member's threads. */
    record Sample(long[] bytes, long[] cpuNanos, long otherCpuNanos) {
    }

    private MemberShares() {
    }

    static Sample take(List<GroupChannel> channels) {
        int n = channels.size();
        long[] bytes = new long[n];
        long[] cpu = new long[n];
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            GroupChannel ch = channels.get(i);
            names.add(ch.self().name());
            if (ch instanceof JGroupsBacked j && j.jchannel() != null) {
                var stats = j.jchannel().getProtocolStack().getTransport().getMessageStats();
                stats.enable(true);   // off by default: counted from the first sample on
                bytes[i] = stats.getNumBytesSent();
            } else {
                bytes[i] = -1;
            }
        }
        long other = 0;
        for (ThreadInfo t : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            if (t == null) {
                continue;
            }
            long c = THREADS.getThreadCpuTime(t.getThreadId());
            if (c < 0) {
                continue;
            }
            int owner = owner(t.getThreadName(), names);
            if (owner >= 0) {
                cpu[owner] += c;
            } else if (!t.getThreadName().startsWith("bench-")) {   // the bench's own sender threads aside
                other += c;
            }
        }
        return new Sample(bytes, cpu, other);
    }

    /** The member whose name {@code thread} carries (a whole name: bench-1 is not bench-10), or -1. */
    static int owner(String thread, List<String> names) {
        for (int i = 0; i < names.size(); i++) {
            String name = names.get(i);
            int at = thread.indexOf(name);
            while (at >= 0) {
                int end = at + name.length();
                boolean startOk = at == 0 || !Character.isLetterOrDigit(thread.charAt(at - 1));
                boolean endOk = end == thread.length() || !Character.isLetterOrDigit(thread.charAt(end));
                if (startOk && endOk) {
                    return i;
                }
                at = thread.indexOf(name, at + 1);
            }
        }
        return -1;
    }

    /** "lead=bench-0 bytes_share=... lead_bytes_ratio=... cpu_share=... lead_cpu_ratio=... other_cpu=...". */
    static String describe(Sample before, Sample after, int lead, List<String> names) {
        int n = names.size();
        long[] bytes = new long[n];
        long[] cpu = new long[n];
        for (int i = 0; i < n; i++) {
            bytes[i] = after.bytes()[i] - before.bytes()[i];
            cpu[i] = after.cpuNanos()[i] - before.cpuNanos()[i];
        }
        StringBuilder s = new StringBuilder("lead=").append(lead < 0 ? "?" : names.get(lead));
        if (before.bytes()[0] >= 0) {
            s.append(" bytes_share=").append(shares(bytes)).append(" lead_bytes_ratio=").append(ratio(bytes, lead));
        }
        long other = after.otherCpuNanos() - before.otherCpuNanos();
        long total = other;
        for (long c : cpu) {
            total += c;
        }
        s.append(" cpu_share=").append(shares(cpu)).append(" lead_cpu_ratio=").append(ratio(cpu, lead))
                .append(String.format(Locale.ROOT, " unattributed_cpu=%.0f%%", total == 0 ? 0.0 : 100.0 * other / total));
        return s.toString();
    }

    private static String shares(long[] v) {
        long sum = 0;
        for (long x : v) {
            sum += x;
        }
        List<String> parts = new ArrayList<>();
        for (long x : v) {
            parts.add(String.format(Locale.ROOT, "%.0f%%", sum == 0 ? 0.0 : 100.0 * x / sum));
        }
        return String.join("/", parts);
    }

    /** The lead member's figure over the others' mean. */
    private static String ratio(long[] v, int lead) {
        if (lead < 0) {
            return "?";
        }
        double others = 0;
        for (int i = 0; i < v.length; i++) {
            if (i != lead) {
                others += v[i];
            }
        }
        others /= v.length - 1;
        return others == 0 ? "inf" : String.format(Locale.ROOT, "%.2f", v[lead] / others);
    }
}
