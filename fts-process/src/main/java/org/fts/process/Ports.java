package org.fts.process;

import java.io.IOException;
import java.net.ServerSocket;

/** Free ports for the child processes (replicas, name servers) that tests, the test kit and the demo start. */
public final class Ports {
    private Ports() {
    }

    /**
     * Ports the replicas are told to bind come from below Linux's ephemeral range (32768 up): a port the kernel handed
     * out as free (port 0) could be taken by any process's next outgoing connection or UDP socket before the replica
     * starting later binds it, and one did (a JacORB listener's BindException, FailoverProcessTest in CI).
     */
    private static final int RANGE_FLOOR = 20_000;
    private static final int RANGE_SPAN = 12_000;

    /**
     * JVMs that pick ports at the same time (the build's test forks) each take their own slice of the range:
     * {@code -Dfts.ports.slice=K/N} picks from slice (K-1) mod N of N equal slices, so that a port one JVM picked
     * and has not bound yet is never picked by another. K counts up (Surefire numbers its forks on across a
     * module's executions), so consecutive numbers take different slices. Without it, the whole range.
     */
    static final String SLICE = "fts.ports.slice";
    private static final int[] SLICE_RANGE = slice(System.getProperty(SLICE));
    private static final int PORT_FLOOR = SLICE_RANGE[0];
    private static final int PORT_SPAN = SLICE_RANGE[1];

    static int[] slice(String spec) {
        if (spec == null || spec.isBlank()) {
            return new int[] {RANGE_FLOOR, RANGE_SPAN};
        }
        String[] kn = spec.trim().split("/");
        try {
            int k = Integer.parseInt(kn[0].trim());
            int n = kn.length == 2 ? Integer.parseInt(kn[1].trim()) : -1;
            if (n >= 1 && n <= 100 && k >= 1) {
                int span = RANGE_SPAN / n;
                return new int[] {RANGE_FLOOR + ((k - 1) % n) * span, span};
            }
        } catch (NumberFormatException e) {
            // fall through to the error below
        }
        throw new IllegalArgumentException(SLICE + "=" + spec + ": expected K/N with K >= 1 and 1 <= N <= 100");
    }

    /** Ports handed out by this JVM: a port picked and not bound yet is free to the next check, so never twice. */
    private static final java.util.Set<Integer> HANDED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /** A port of this JVM's slice not handed out before (once the slice is half handed out, any). */
    private static int unhanded() {
        for (int attempt = 0; attempt < 1_000; attempt++) {
            int port = PORT_FLOOR + java.util.concurrent.ThreadLocalRandom.current().nextInt(PORT_SPAN);
            if (HANDED.size() > PORT_SPAN / 2 || HANDED.add(port)) {
                return port;
            }
        }
        return PORT_FLOOR + java.util.concurrent.ThreadLocalRandom.current().nextInt(PORT_SPAN);
    }

    /** A UDP port free now, below the ephemeral range. */
    public static int freeUdp() throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = unhanded();
            try (java.net.DatagramSocket s = new java.net.DatagramSocket(port)) {
                return s.getLocalPort();
            } catch (java.net.BindException taken) {
                // try another
            }
        }
        throw new IOException("no free UDP port in " + PORT_FLOOR + ".." + (PORT_FLOOR + PORT_SPAN));
    }

    /** A TCP port free now on {@code host}, below the ephemeral range. */
    public static int free(String host) throws IOException {
        return freeOnEvery(java.util.List.of(host));
    }

    /**
     * A TCP port free now on every one of {@code hosts} (the same port everywhere, as on separate machines),
     * below the ephemeral range.
     */
    public static int freeOnEvery(java.util.List<String> hosts) throws IOException {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = unhanded();
            boolean free = true;
            for (String host : hosts) {
                // without SO_REUSEADDR, as Netty binds: a port with connections in TIME_WAIT is not free for it
                try (ServerSocket s = new ServerSocket()) {
                    s.setReuseAddress(false);
                    s.bind(new java.net.InetSocketAddress(java.net.InetAddress.getByName(host), port), 1);
                    free &= s.getLocalPort() == port;
                } catch (java.net.BindException taken) {
                    free = false;
                    break;
                }
            }
            if (free) {
                return port;
            }
        }
        throw new IOException("no port free on every one of " + hosts + " in " + PORT_FLOOR + ".."
                + (PORT_FLOOR + PORT_SPAN));
    }
}
