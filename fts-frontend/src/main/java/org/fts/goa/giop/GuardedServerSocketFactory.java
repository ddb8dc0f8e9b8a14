package org.fts.goa.giop;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Properties;

import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeys;
import org.jacorb.config.Configurable;
import org.jacorb.config.Configuration;
import org.jacorb.orb.factory.ServerSocketFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * JacORB's server socket factory for a replica, with the GIOP message-size guard ({@link GiopGuard}):
 * {@code jacorb.net.server_socket_factory=org.fts.goa.giop.GuardedServerSocketFactory}. It binds plain server
 * sockets as JacORB's default factory does. JacORB's IIOP listener reads each accepted connection through the
 * socket's {@code InputStream} ({@code ServerIIOPConnection}; JacORB 3.9 has no NIO server transport:
 * {@code jacorb.connection.nonblocking} changes only the client side), so that stream is where the guard sits.
 * Not covered: SSL listeners ({@code jacorb.ssl.server_socket_factory}), and in-process calls over JacORB's IIOP
 * loopback.
 *
 * <p>JacORB creates it when the root POA's listener starts, and configures it with the ORB's properties:
 * {@code fts.giop.max_message_size} and {@code fts.intake.max_bytes} are read and logged then; the intake budget
 * is this factory's, so one ORB's. A bad value fails the root POA's creation with
 * {@code INITIALIZE} naming the key.
 */
public final class GuardedServerSocketFactory implements ServerSocketFactory, Configurable {
    private static final Logger LOG = LoggerFactory.getLogger(GuardedServerSocketFactory.class);

    private long limit = GiopGuard.MAX_MESSAGE_SIZE.defaultValue();
    private IntakeBudget budget = new IntakeBudget(GiopGuard.intakeBudget(0));
    private IoWatchdog watchdog = new IoWatchdog(GiopGuard.IO_TIMEOUT.defaultValue().toNanos());
    private String group = "fts";
    private String replica = "";

    @Override
    public void configure(Configuration configuration) {
        Properties props = new Properties();
        List<ConfigKey<?>> keys = List.of(GiopGuard.MAX_MESSAGE_SIZE, GiopGuard.INTAKE_MAX_BYTES,
                GiopGuard.IO_TIMEOUT);
        for (ConfigKey<?> key : keys) {
            String value = configuration.getAttribute(key.name(), null);
            if (value != null) {
                props.setProperty(key.name(), value);
            }
        }
        ConfigKeys.validateAndLog(LOG, "GIOP guard", props, keys);
        limit = GiopGuard.MAX_MESSAGE_SIZE.get(props);
        budget = new IntakeBudget(GiopGuard.intakeBudget(GiopGuard.INTAKE_MAX_BYTES.get(props)));
        LOG.info("intake budget: {} bytes for requests read and not yet answered", budget.max());
        group = configuration.getAttribute("fts.group", "fts");
        replica = configuration.getAttribute("fts.replica.id", "");
        watchdog = new IoWatchdog(GiopGuard.IO_TIMEOUT.get(props).toNanos());
    }

    /**
     * The budget over JMX once a listener uses it, {@code org.fts:type=Intake,group=<group>,member=<id>,port=<port>}
     * (replacing a stale one of that name: a listener restarted on its port); never fatal: a replica serves without
     * it. The port tells apart the listeners of one process (a replica's, and its relay's for ordered outcalls,
     * when the factory reaches every ORB through system properties).
     */
    private ServerSocket registered(ServerSocket socket) {
        IntakeJmx.register(group, replica, socket.getLocalPort(), budget);
        return socket;
    }

    @Override
    public ServerSocket createServerSocket(int port) throws IOException {
        return registered(new GuardedServerSocket(port, 0, null, limit, budget, watchdog));
    }

    @Override
    public ServerSocket createServerSocket(int port, int backlog) throws IOException {
        return registered(new GuardedServerSocket(port, backlog, null, limit, budget, watchdog));
    }

    @Override
    public ServerSocket createServerSocket(int port, int backlog, InetAddress ifAddress) throws IOException {
        return registered(new GuardedServerSocket(port, backlog, ifAddress, limit, budget, watchdog));
    }
}
