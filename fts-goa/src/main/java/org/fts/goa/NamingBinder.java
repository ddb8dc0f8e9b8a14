package org.fts.goa;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.omg.CORBA.ORB;
import org.omg.CosNaming.NameComponent;
import org.omg.CosNaming.NamingContext;
import org.omg.CosNaming.NamingContextExtHelper;
import org.omg.CosNaming.NamingContextPackage.AlreadyBound;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds a replica's object groups in a CosNaming service ({@code fts.naming.url}), under
 * {@code fts.naming.context}, one name per object id. Every serving replica binds the same names to the same
 * object group references: {@code rebind} makes that idempotent, and a replica that serves, or sees the group
 * reference's version change (a replica announced a new endpoint), binds again, so the names follow the group.
 * A replica that does not serve (a minority, fetching its state) binds nothing. Runs on its own thread, never on
 * the request path; an unreachable naming service is retried and logged, never fatal.
 */
final class NamingBinder implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(NamingBinder.class);
    /** How often the binder checks whether it has to bind. */
    private static final long CHECK_MS = 500;
    /** A full rebind this often anyway: a naming service restarted without its bindings gets them back. */
    private static final long REFRESH_MS = 30_000;

    private final ORB orb;
    private final String url;
    private final List<String> path;
    private final Supplier<Collection<byte[]>> objects;
    private final Function<byte[], org.omg.CORBA.Object> reference;
    private final BooleanSupplier serving;
    private final LongSupplier version;
    private final String self;
    private final ScheduledExecutorService thread;
    private long boundVersion = -1;
    private int boundObjects = -1;
    private long boundAt;
    private String lastFailure;

    NamingBinder(ORB orb, String url, String context, Supplier<Collection<byte[]>> objects,
                 Function<byte[], org.omg.CORBA.Object> reference, BooleanSupplier serving, LongSupplier version,
                 String self) {
        this.orb = orb;
        this.url = url;
        this.path = List.of(context.split("/"));
        this.objects = objects;
        this.reference = reference;
        this.serving = serving;
        this.version = version;
        this.self = self;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fts-naming-" + self);
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(this::check, 0, CHECK_MS, TimeUnit.MILLISECONDS);
    }

    /** The CosNaming name of object {@code oid}: the context path, then the object id. */
    NameComponent[] name(byte[] oid) {
        List<NameComponent> n = new ArrayList<>();
        path.forEach(p -> n.add(new NameComponent(p, "")));
        n.add(new NameComponent(new String(oid, StandardCharsets.UTF_8), ""));
        return n.toArray(NameComponent[]::new);
    }

    private void check() {
        try {
            Collection<byte[]> ids = objects.get();
            long v = version.getAsLong();
            boolean due = v != boundVersion || ids.size() != boundObjects
                    || System.currentTimeMillis() - boundAt > REFRESH_MS;
            if (!serving.getAsBoolean() || ids.isEmpty() || !due) {
                return;
            }
            NamingContext root = NamingContextExtHelper.narrow(orb.string_to_object(url));
            NamingContext ctx = root;
            for (String p : path) {
                NameComponent[] one = {new NameComponent(p, "")};
                try {
                    ctx = ctx.bind_new_context(one);
                } catch (AlreadyBound e) {
                    ctx = org.omg.CosNaming.NamingContextHelper.narrow(ctx.resolve(one));
                }
            }
            for (byte[] oid : ids) {
                NameComponent[] n = name(oid);
                ctx.rebind(new NameComponent[] {n[n.length - 1]}, reference.apply(oid));
            }
            if (v != boundVersion || lastFailure != null) {
                LOG.info("replica {} bound {} object groups (version {}) under {} in {}", self, ids.size(), v,
                        String.join("/", path), url);
            }
            boundVersion = v;
            boundObjects = ids.size();
            boundAt = System.currentTimeMillis();
            lastFailure = null;
        } catch (Exception e) {   // CORBA system exceptions, naming exceptions: retried at the next check
            String why = e.toString();
            if (!why.equals(lastFailure)) {
                LOG.warn("replica {} cannot bind its object groups in {} (fts.naming.url): {}; retrying", self, url,
                        why);
            }
            lastFailure = why;
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
    }
}
