package org.fts.goa.frontend;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.util.concurrent.GlobalEventExecutor;
import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeys;
import org.fts.goa.giop.GiopGuard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GOA's own IIOP listener for the group's objects (docs/frontend.md): GIOP on Netty event loops, the frame
 * guard and the intake budget applied as bytes arrive, each request handed to the adaptor on the loop that read
 * it, each reply written without blocking by the thread that made it ({@link ReplyWriter}). JacORB keeps its own
 * listener for every other object.
 */
public final class FrontEnd implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FrontEnd.class);

    public static final ConfigKey<Integer> PORT = ConfigKey.integer("fts.iiop.port", 0, 0, 65535, "port",
            "the port of the adaptor's own IIOP listener for the group's objects, on the host of JacORB's OAIAddr; "
                    + "its endpoint is the replica's in the group's references (fts.replicas names these); on a "
                    + "TLS-only replica it speaks TLS with JacORB's server keys (jacorb.security.*). 0: the group's "
                    + "requests go through JacORB's listener (OAPort)");
    public static final ConfigKey<Integer> THREADS = ConfigKey.integer("fts.iiop.threads", 1, 1, 64, "threads",
            "event-loop threads of the adaptor's IIOP listener: each reads its connections and casts their requests "
                    + "(on epoll it also writes their replies)");
    public static final ConfigKey<Integer> WRITE_HIGH_WATER = ConfigKey.integer("fts.iiop.write_high_water",
            256 << 10, 4096, Integer.MAX_VALUE, "bytes", "replies waiting to be sent on one connection beyond which "
                    + "it is no longer read, until they fall to half of it (a client that does not read its replies "
                    + "holds up only itself)");
    public static final ConfigKey<String> TRANSPORT = ConfigKey.choice("fts.iiop.transport", "nio",
            List.of("nio", "epoll", "auto"), "how the adaptor's IIOP listener waits for its sockets: 'nio', the JDK's "
                    + "selector, where the thread that made a reply writes it (no event-loop wake-up per reply); "
                    + "'epoll', Netty's native transport (Linux on x86-64), where the event loop writes every reply; "
                    + "'auto', epoll where it loads, else nio");
    public static final List<ConfigKey<?>> KEYS = List.of(PORT, THREADS, WRITE_HIGH_WATER, TRANSPORT);

    private final GroupRequests requests;
    private final int maxMessage;
    private final long intakeMax;
    private final long ioTimeoutNanos;
    private final AtomicLong held = new AtomicLong();
    /** The most held at once (a gauge: racy updates may miss a concurrent peak), and readers held back. */
    private long peak;
    private final AtomicLong holds = new AtomicLong();
    private final Queue<GiopConnection> waiting = new ConcurrentLinkedQueue<>();
    private final EventLoopGroup loops;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Channel server;
    private volatile boolean opened;

    private FrontEnd(String host, int port, int threads, int writeHigh, GroupRequests requests, int maxMessage,
                     long intakeMax, Duration ioTimeout, FrontEndTls tls, boolean epoll) throws Exception {
        this.requests = requests;
        this.maxMessage = maxMessage;
        this.intakeMax = intakeMax;
        this.ioTimeoutNanos = ioTimeout.toNanos();
        AtomicInteger n = new AtomicInteger();
        this.loops = new MultiThreadIoEventLoopGroup(threads, r -> {
            Thread t = new Thread(r, "fts-iiop-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        FrontEnd self = this;
        ServerBootstrap b = new ServerBootstrap().group(loops)
                .channel(epoll ? EpollServerSocketChannel.class : DirectNioChannels.Server.class)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // reads land in heap buffers, freed as the decoder consumes them: what a connection holds is bounded
                // by the intake budget and the heap, never by a pool of direct chunks (FloodProcessTest)
                .childOption(ChannelOption.ALLOCATOR, new io.netty.buffer.UnpooledByteBufAllocator(false))
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(writeHigh / 2, writeHigh))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {   // the frame guard and the budget apply to what TLS decrypts
                            ch.pipeline().addLast("tls", tls.handler(ch.alloc(), ioTimeout.toMillis()));
                        }
                        GiopFrames frames = new GiopFrames(maxMessage);
                        GiopConnection connection = new GiopConnection(self, frames);
                        frames.admitter(connection);
                        ch.pipeline().addLast(frames, connection);
                        channels.add(ch);
                        if (!opened) {   // held until the objects are there, as JacORB's POA holds requests
                            ch.config().setAutoRead(false);
                        }
                    }
                });
        try {
            this.server = b.bind(new InetSocketAddress(host, port)).sync().channel();
        } catch (Exception e) {   // Netty rethrows the bind's IOException unchecked
            loops.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
    }

    /**
     * Listens on {@code host}:{@code port}; {@code props} gives the other keys (and the GIOP guard's limits);
     * {@code tls}, if not null, makes it a TLS-only listener.
     *
     * @throws org.fts.config.ListenFailure naming {@code fts.iiop.port} when the port cannot be bound (a restart may succeed)
     */
    public static FrontEnd start(String host, int port, Properties props, GroupRequests requests, FrontEndTls tls) {
        ConfigKeys.validateAndLog(LOG, "IIOP front end", props, KEYS);
        boolean epoll = epoll(TRANSPORT.get(props));
        try {
            FrontEnd f = new FrontEnd(host, port, THREADS.get(props), WRITE_HIGH_WATER.get(props), requests,
                    GiopGuard.MAX_MESSAGE_SIZE.get(props), GiopGuard.intakeBudget(GiopGuard.INTAKE_MAX_BYTES.get(props)),
                    GiopGuard.IO_TIMEOUT.get(props), tls, epoll);
            LOG.info("IIOP front end listening on {} ({} event loop(s) on {}, {})", f.endpoint(), THREADS.get(props),
                    epoll ? "epoll" : "nio", tls == null ? "plaintext" : tls.describe());
            return f;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while binding " + host + ":" + port, e);
        } catch (Exception e) {
            throw new org.fts.config.ListenFailure(PORT.name(), "is " + port + ", but the adaptor cannot listen on "
                    + host + ":" + port + ": " + e, e);
        }
    }

    /** Whether the listener uses Netty's native epoll transport ({@code fts.iiop.transport}). */
    private static boolean epoll(String transport) {
        if (transport.equals("nio")) {
            return false;
        }
        if (Epoll.isAvailable()) {
            return true;
        }
        if (transport.equals("epoll")) {
            throw new org.fts.config.ConfigException(TRANSPORT.name(), "is epoll, but Netty's native transport does not "
                    + "load here: " + Epoll.unavailabilityCause());
        }
        LOG.debug("IIOP front end: epoll unavailable ({}), using nio", String.valueOf(Epoll.unavailabilityCause()));
        return false;
    }

    /**
     * The adaptor's objects are activated: connections are read from now on. Until then they are accepted and held
     * (not read), as JacORB's POA holds requests until its manager is activated.
     */
    public void open() {
        opened = true;
        for (Channel ch : channels) {
            ch.eventLoop().execute(() -> ch.config().setAutoRead(true));
        }
    }

    /** host:port this listener is bound to. */
    public String endpoint() {
        InetSocketAddress a = (InetSocketAddress) server.localAddress();
        return a.getAddress().getHostAddress() + ":" + a.getPort();
    }

    /** This listener's intake budget, for JMX ({@link org.fts.goa.giop.IntakeJmx}). */
    public org.fts.goa.giop.IntakeBudgetMXBean intake() {
        return new org.fts.goa.giop.IntakeBudgetMXBean() {
            @Override
            public long getMaxBytes() {
                return intakeMax;
            }

            @Override
            public long getUsedBytes() {
                return held.get();
            }

            @Override
            public long getPeakBytes() {
                return peak;
            }

            @Override
            public long getHolds() {
                return holds.get();
            }
        };
    }

    /** The port this listener is bound to. */
    public int port() {
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    GroupRequests requests() {
        return requests;
    }

    long ioTimeoutNanos() {
        return ioTimeoutNanos;
    }

    /**
     * Takes {@code n} intake bytes if the budget has room for them, or holds nothing (a message larger than the whole
     * budget still goes, alone): whether it took them.
     */
    boolean tryTake(long n) {
        while (true) {
            long h = held.get();
            if (h > 0 && h + n > intakeMax) {
                return false;
            }
            if (held.compareAndSet(h, h + n)) {
                if (h + n > peak) {
                    peak = h + n;
                }
                return true;
            }
        }
    }

    void released(long n) {
        if (held.addAndGet(-n) <= intakeMax) {
            for (GiopConnection c; (c = waiting.poll()) != null; ) {
                c.budgetFreed();
            }
        }
    }

    /**
     * {@code c} stopped reading for the budget: it reads again when replies give bytes back (each give-back wakes
     * the waiting connections, which try again). If everything was given back meanwhile, it reads again now.
     */
    void waitForBudget(GiopConnection c) {
        holds.incrementAndGet();
        GiopGuard.heldBack(null, held.get(), intakeMax);
        waiting.add(c);
        if (held.get() == 0 && waiting.remove(c)) {
            c.budgetFreed();
        }
    }

    void refused(SocketAddress peer, String why) {
        GiopGuard.refused(peer, why, maxMessage);
    }

    void timedOut(SocketAddress peer, String why) {
        GiopGuard.timedOut(peer, why);
    }

    /** Stops listening and closes every connection (their clients fail over). */
    @Override
    public void close() {
        server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        channels.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
        loops.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(3, TimeUnit.SECONDS);
    }
}
