package org.fts.goa.giop;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;

import org.fts.config.ConfigKey;
import org.omg.CORBA.ORB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GIOP message-size guard of a replica: a connection whose peer sends a GIOP message larger than
 * {@code fts.giop.max_message_size} is closed before JacORB allocates that message (docs/goa.md, "Bad input").
 * JacORB 3.9 allocates a buffer of the size a GIOP header declares before it reads the body, with no bound of
 * its own, so a bare 12-byte header could otherwise make a replica allocate up to 2 GiB.
 *
 * <p>JacORB reads its server socket factory once, at {@code ORB.init}, before any adaptor exists, so a server
 * turns the guard on with an ORB property ({@link #orbProperties()}):
 * {@code jacorb.net.server_socket_factory=org.fts.goa.giop.GuardedServerSocketFactory}. The sample replica does.
 */
public final class GiopGuard {
    private static final Logger LOG = LoggerFactory.getLogger(GiopGuard.class);

    public static final ConfigKey<Integer> MAX_MESSAGE_SIZE = ConfigKey.integer("fts.giop.max_message_size",
            16 << 20, 1024, Integer.MAX_VALUE - GiopFrameGuard.HEADER, "bytes",
            "largest GIOP message a replica reads (after its 12-byte header; a fragmented message counts whole): "
                    + "a connection sending a larger one is closed before its buffer is allocated (needs "
                    + "jacorb.net.server_socket_factory=org.fts.goa.giop.GuardedServerSocketFactory)");

    public static final ConfigKey<Long> INTAKE_MAX_BYTES = ConfigKey.longValue("fts.intake.max_bytes", 0,
            0, Long.MAX_VALUE, "bytes",
            "most bytes a replica holds for client requests it has read and not yet answered, over all its "
                    + "connections; when spent, it stops reading from clients (TCP backpressure) until replies free "
                    + "some. 0: a thirty-second of the JVM's maximum heap (needs "
                    + "jacorb.net.server_socket_factory=org.fts.goa.giop.GuardedServerSocketFactory)");

    public static final ConfigKey<Duration> IO_TIMEOUT = ConfigKey.duration("fts.giop.io_timeout",
            Duration.ofSeconds(30), Duration.ofMillis(100), Duration.ofDays(1),
            "longest a replica waits for the rest of a GIOP message a client started sending, or for a client to "
                    + "take a reply being written to it; then it closes the connection (idle connections are not "
                    + "affected; needs jacorb.net.server_socket_factory=org.fts.goa.giop.GuardedServerSocketFactory)");

    /** JacORB's ORB property naming the server socket factory; read at ORB.init. */
    public static final String SERVER_SOCKET_FACTORY = "jacorb.net.server_socket_factory";

    private static final AtomicLong REFUSED = new AtomicLong();
    private static final AtomicLong LAST_WARNING = new AtomicLong(Long.MIN_VALUE);
    private static final AtomicLong HELD = new AtomicLong();
    private static final AtomicLong TIMED_OUT = new AtomicLong();
    private static final AtomicLong LAST_TIMEOUT_WARNING = new AtomicLong(Long.MIN_VALUE);
    private static final AtomicLong LAST_HOLD_WARNING = new AtomicLong(Long.MIN_VALUE);
    private static final long WARNING_INTERVAL_NANOS = 1_000_000_000L;

    private GiopGuard() {
    }

    /** The ORB properties that turn the guard and the intake budget on: pass them to {@code ORB.init} of a replica. */
    public static Properties orbProperties() {
        Properties p = new Properties();
        p.setProperty(SERVER_SOCKET_FACTORY, GuardedServerSocketFactory.class.getName());
        return p;
    }

    /** Whether this ORB's connections are read through the guard. */
    public static boolean installedIn(ORB orb) {
        // a null default: JacORB's getAttribute stores a non-null default as the value
        return orb instanceof org.jacorb.orb.ORB jacorb && GuardedServerSocketFactory.class.getName()
                .equals(jacorb.getConfiguration().getAttribute(SERVER_SOCKET_FACTORY, null));
    }

    /** Warns, naming the fix, when this replica's ORB was started without the guard. */
    public static void checkInstalled(ORB orb) {
        if (orb instanceof org.jacorb.orb.ORB && !installedIn(orb)) {
            LOG.warn("no GIOP message size guard: a client can make this replica allocate up to 2 GiB per message."
                    + " Start the ORB with {}={} (GiopGuard.orbProperties(); docs/goa.md)", SERVER_SOCKET_FACTORY,
                    GuardedServerSocketFactory.class.getName());
        }
    }

    /**
     * The intake budget {@code fts.intake.max_bytes} stands for: itself, or a thirty-second of the maximum heap. A
     * request's bytes are held several times over on their way (JacORB's buffer, the capture, the batch, the group's
     * history, the decoded copy, the servant's unmarshalled argument), and each connection keeps its last message's
     * buffer besides: with 256 MiB heaps, a flood of 1 MiB requests killed the replica with an eighth or a sixteenth
     * of the heap as budget, and not with a thirty-second (FloodProcessTest; docs/goa.md, "Bounded intake").
     */
    public static long intakeBudget(long configured) {
        return configured > 0 ? configured : Runtime.getRuntime().maxMemory() / 32;
    }

    /** Times, in this JVM, a connection's reader was held back because the intake budget was spent. */
    public static long heldBack() {
        return HELD.get();
    }

    /** Counts a reader held back, and logs it (at most one warning a second). */
    static void heldBack(SocketAddress peer, IntakeBudget budget) {
        heldBack(peer, budget.used(), budget.max());
    }

    /** Counts a reader held back with {@code used} of {@code max} bytes held, and logs it (one warning a second). */
    public static void heldBack(SocketAddress peer, long used, long max) {
        long n = HELD.incrementAndGet();
        if (firstThisSecond(LAST_HOLD_WARNING)) {
            LOG.warn("intake budget spent ({} of {} bytes held for requests not yet answered): not reading from {} "
                    + "until replies free some ({}; {} holds so far)", used, max, peer,
                    INTAKE_MAX_BYTES.name(), n);
        } else {
            LOG.debug("intake budget spent: holding back {}", peer);
        }
    }

    /** Connections closed, in this JVM, because a message on them was under way for too long. */
    public static long connectionsTimedOut() {
        return TIMED_OUT.get();
    }

    /** Counts a connection closed by the watchdog, and logs it (at most one warning a second). */
    public static void timedOut(SocketAddress peer, String why) {
        long n = TIMED_OUT.incrementAndGet();
        if (firstThisSecond(LAST_TIMEOUT_WARNING)) {
            LOG.warn("GIOP guard: closed the connection from {}: {} ({} so far)", peer, why, n);
        } else {
            LOG.debug("GIOP guard: closed the connection from {}: {}", peer, why);
        }
    }

    /** Connections closed by the guard in this JVM. */
    public static long connectionsRefused() {
        return REFUSED.get();
    }

    /** Counts a refused connection, and logs it (at most one warning a second: a flood must not flood the log). */
    public static void refused(SocketAddress peer, String why, long limit) {
        long n = REFUSED.incrementAndGet();
        if (firstThisSecond(LAST_WARNING)) {
            LOG.warn("GIOP guard: closed the connection from {}: {}, over {}={} ({} connections closed so far)",
                    peer, why, MAX_MESSAGE_SIZE.name(), limit, n);
        } else {
            LOG.debug("GIOP guard: closed the connection from {}: {}", peer, why);
        }
    }

    /** Whether a warning of the kind {@code last} stands for may be logged now: one a second at most. */
    private static boolean firstThisSecond(AtomicLong last) {
        long now = System.nanoTime();
        long before = last.get();
        return (before == Long.MIN_VALUE || now - before >= WARNING_INTERVAL_NANOS) && last.compareAndSet(before, now);
    }
}
