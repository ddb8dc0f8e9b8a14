package org.fts.goa.giop;

import java.net.SocketAddress;
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

    /** JacORB's ORB property naming the server socket factory; read at ORB.init. */
    public static final String SERVER_SOCKET_FACTORY = "jacorb.net.server_socket_factory";

    private static final AtomicLong REFUSED = new AtomicLong();
    private static final AtomicLong LAST_WARNING = new AtomicLong(Long.MIN_VALUE);
    private static final long WARNING_INTERVAL_NANOS = 1_000_000_000L;

    private GiopGuard() {
    }

    /** The ORB properties that turn the guard on: pass them to {@code ORB.init} of a replica. */
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

    /** Connections closed by the guard in this JVM. */
    public static long connectionsRefused() {
        return REFUSED.get();
    }

    /** Counts a refused connection, and logs it (at most one warning a second: a flood must not flood the log). */
    static void refused(SocketAddress peer, String why, long limit) {
        long n = REFUSED.incrementAndGet();
        long now = System.nanoTime();
        long last = LAST_WARNING.get();
        if (last == Long.MIN_VALUE || now - last >= WARNING_INTERVAL_NANOS) {
            if (LAST_WARNING.compareAndSet(last, now)) {
                LOG.warn("GIOP guard: closed the connection from {}: {}, over {}={} ({} connections closed so far)",
                        peer, why, MAX_MESSAGE_SIZE.name(), limit, n);
                return;
            }
        }
        LOG.debug("GIOP guard: closed the connection from {}: {}", peer, why);
    }
}
