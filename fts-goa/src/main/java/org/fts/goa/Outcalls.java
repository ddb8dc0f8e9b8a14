package org.fts.goa;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.fts.config.ConfigKey;
import org.fts.goa.intake.Cast;
import org.fts.goa.intake.Reply;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.INTERNAL;
import org.omg.CORBA.MARSHAL;
import org.omg.CORBA.ORB;
import org.omg.CORBA.SystemException;
import org.omg.CORBA.portable.ApplicationException;
import org.omg.CORBA.portable.InputStream;
import org.omg.CORBA.portable.InvokeHandler;
import org.omg.CORBA.portable.ObjectImpl;
import org.omg.CORBA.portable.OutputStream;
import org.omg.CORBA.portable.RemarshalException;
import org.omg.CORBA.portable.ResponseHandler;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;
import org.omg.PortableServer.Servant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls a replicated servant makes to objects that are not groups, with {@code fts.outcalls=ordered}: one replica
 * makes each call, and its outcome travels through the total order, so every replica's servant goes on with the same
 * bytes (docs/goa.md, "Calls out to other servers").
 *
 * <p>How: {@link OutcallInterceptor} stops the servant's call in {@code send_request} (on its execution thread, which
 * is then not the delivery thread: {@link ExecutionLanes}) and hands its marshalled arguments to {@link #outcome}.
 * At the designated replica (the one that received the incoming request, or, once it left the view, the view's first
 * member) that makes the call to the real target through a private ORB and casts the outcome ({@link Cast.Outcome});
 * at every replica it returns the outcome delivered first. The servant's thread waits for it inside the JVM, under no
 * ORB's reply timeout, so a replica whose whole process stops while it waits (a long pause, {@code SIGSTOP}) still
 * gets the ordered outcome. The interceptor then throws a system exception outcome at once; a reply or user exception
 * it forwards to this replica's relay, an object of the private ORB that answers it at once from {@link #answers},
 * and again if that local leg must be sent again.
 *
 * <p>Guarantees: every replica's servant sees the same outcome of each call (the first one ordered). A call is made
 * at least once while a replica that would make it lives; more than once only when the designated replica fails or
 * leaves after calling and before its outcome is ordered (another then makes it again, with the same identity), or
 * replays its log after a restart before the outcome it cast is replayed. Waiting for an outcome has no timeout of its
 * own: the call's own ends it, as under a plain POA (the private ORB takes the servant ORB's
 * {@code jacorb.connection.client.pending_reply_timeout} and native codesets), and its failure is the outcome. Only GIOP 1.2, big-endian
 * targets are relayed (raw bodies are copied 8-aligned); any other gets {@code MARSHAL}, the same at every replica.
 */
final class Outcalls {
    private static final Logger LOG = LoggerFactory.getLogger(Outcalls.class);

    static final ConfigKey<String> MODE = ConfigKey.choice("fts.outcalls", "every", List.of("every", "ordered"),
            "calls a servant makes to objects that are not object groups: every = each replica makes its own; ordered "
                    + "= one replica makes it and its outcome is ordered to all (servants then execute on a thread of "
                    + "their own, off the delivery thread); calls to object groups carry the request's identity either way");
    static final List<ConfigKey<?>> KEYS = List.of(MODE);
    /** Outcomes delivered before their call was made here (a lagging replica), kept at most this many. */
    private static final int KEPT = 10_000;
    private static final long RECHECK_MS = 200;
    /** After this long with no outcome ordered, every replica makes the call (at least once). */
    private static final long TAKEOVER_MS = 30_000;
    /** The servant ORB's settings its private ORB takes: the same timeout, the same codesets on the wire. */
    private static final List<String> COPIED = List.of("jacorb.connection.client.pending_reply_timeout",
            "jacorb.native_char_codeset", "jacorb.native_wchar_codeset");

    private final String self;
    private final Consumer<Cast> cast;
    private final Supplier<List<String>> view;
    private final ORB relayOrb;
    private final POA relayPoa;
    private final Map<String, Pending> pending = new ConcurrentHashMap<>();
    /** Why this replica's state is about to be replaced, or null ({@link #stale}). */
    private volatile String stale;
    /** Ordered outcomes the relay answers their servant's leg with, until the interceptor saw the leg end. */
    private final Map<String, Cast.Outcome> answers = new ConcurrentHashMap<>();
    /** The relay's host:port: a call forwarded there is not forwarded again. */
    private final String relayEndpoint;
    private final LinkedHashMap<String, Cast.Outcome> early = new LinkedHashMap<>();

    /** A call made by a servant here, and who should make it. */
    private record Pending(String key, String origin, CompletableFuture<Cast.Outcome> outcome, AtomicBoolean called,
                           long since) {
    }

    /**
     * @param cast casts into the total order
     * @param view the replica ids of the current view, in its order
     * @param servantOrb the servant's ORB, whose reply timeout and codesets the real call gets too
     */
    Outcalls(String self, String host, Consumer<Cast> cast, Supplier<List<String>> view, ORB servantOrb)
            throws Exception {
        this.self = self;
        this.cast = cast;
        this.view = view;
        Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        p.setProperty("jacorb.log.default.verbosity", "0");
        p.setProperty("OAIAddr", host);
        p.setProperty("OAPort", "0");
        p.setProperty("jacorb.implname", "fts-relay");
        for (String key : COPIED) {
            String value = Jacorb.stringSetting(servantOrb, key);
            if (value != null) {
                p.setProperty(key, value);
            }
        }
        // jacorb.properties and system properties reach every ORB of the JVM: the relay's ORB must not run the adaptor's
        // initializer (a second replica of the group in this JVM) if they name it
        p.setProperty(Jacorb.RELAY_ORB, "true");
        this.relayOrb = ORB.init(new String[0], p);
        POA root = POAHelper.narrow(relayOrb.resolve_initial_references("RootPOA"));
        this.relayPoa = root.create_POA("relay", root.the_POAManager(), new org.omg.CORBA.Policy[] {
            root.create_id_assignment_policy(org.omg.PortableServer.IdAssignmentPolicyValue.USER_ID),
            root.create_servant_retention_policy(org.omg.PortableServer.ServantRetentionPolicyValue.NON_RETAIN),
            root.create_request_processing_policy(
                    org.omg.PortableServer.RequestProcessingPolicyValue.USE_DEFAULT_SERVANT)});
        Relay relay = new Relay();
        ((org.omg.CORBA_2_3.ORB) relayOrb).set_delegate(relay);
        relayPoa.set_servant(relay);
        root.the_POAManager().activate();
        this.relayEndpoint = org.fts.ft.Ior.parse(relayOrb.object_to_string(relayPoa.create_reference_with_id(
                new byte[] {0}, "IDL:omg.org/CORBA/Object:1.0"))).profiles().get(0).endpoint();
        Thread t = new Thread(relayOrb::run, "fts-relay-" + self);
        t.setDaemon(true);
        t.start();
    }

    /**
     * The relay object that stands for {@code target} (stringified): a servant's leg for a call to it goes there. Its
     * object id is the target's stringified reference itself, so that a stub JacORB rebinds to the relay after a
     * forward still names its target, at every replica alike, whatever was called in between (no table to forget it).
     */
    org.omg.CORBA.Object relayFor(String target) {
        try {
            return relayPoa.create_reference_with_id(target.getBytes(StandardCharsets.UTF_8),
                    "IDL:omg.org/CORBA/Object:1.0");
        } catch (RuntimeException | org.omg.PortableServer.POAPackage.WrongPolicy e) {
            throw new INTERNAL("FTS: no relay reference for " + target + ": " + e);
        }
    }

    /** The target a relay object's key names (a stub JacORB rebound to the relay): the reference it ends with, or null. */
    static String target(String objectKey) {
        int at = objectKey.lastIndexOf("IOR:");
        return at < 0 ? null : objectKey.substring(at);
    }

    /** Whether {@code endpoint} (host:port) is this replica's relay. */
    boolean isRelay(String endpoint) {
        return relayEndpoint.equals(endpoint);
    }

    /**
     * The servant's thread: call {@code key} of the incoming request received at {@code origin}, to {@code target}
     * (stringified) with these marshalled arguments. Made here if this replica is the one to make it; returns the
     * outcome ordered first, at every replica alike. Waits with no timeout of its own (the call's own ends it).
     */
    Cast.Outcome outcome(String key, String target, String origin, String operation, Jacorb.Arguments args) {
        Pending p = new Pending(key, origin, new CompletableFuture<>(), new AtomicBoolean(), System.nanoTime());
        synchronized (early) {   // with delivered(): an outcome is either found here or put into early, never lost
            pending.put(key, p);
            Cast.Outcome done = early.remove(key);
            if (done != null) {
                p.outcome().complete(done);
            }
        }
        String why = stale;   // read after registering: stale() either sees this call or this sees its mark
        if (why != null) {
            abandon(p, why);
        }
        try {
            return await(p, target, operation, args);
        } finally {
            pending.remove(key);
        }
    }

    /**
     * The interceptor: the leg for call {@code key} will carry this outcome (the relay answers it from here) until the
     * interceptor sees the leg end ({@link #answered}). Never dropped before: a leg that found none would fail here only.
     */
    void answerWith(Cast.Outcome o) {
        answers.put(o.call(), o);
        if (answers.size() > KEPT && answers.size() % KEPT == 1) {
            LOG.warn("{}: {} outcall outcomes wait for their servants' legs to end", self, answers.size());
        }
    }

    /** Whether the relay holds the outcome of call {@code key} for its leg. */
    boolean hasAnswer(String key) {
        return answers.containsKey(key);
    }

    /** The interceptor: the leg for call {@code key} ended (answered, or given up). */
    void answered(String key) {
        answers.remove(key);
    }

    /** The delivery thread: an outcome ordered; the first one of a call counts. */
    void delivered(Cast.Outcome o) {
        synchronized (early) {
            Pending p = pending.get(o.call());
            if (p != null) {
                p.outcome().complete(o);   // a later one of the same call changes nothing
                return;
            }
            early.putIfAbsent(o.call(), o);
            while (early.size() > KEPT) {
                early.remove(early.keySet().iterator().next());
            }
        }
    }

    /**
     * The delivery thread: why this replica's state is about to be replaced (a gap, or it fell behind; it will take
     * the group's state), or null once it is current again. Meanwhile every call, waiting or new, ends at once with
     * TRANSIENT, here only: the executions they belong to are replaced by the state it takes, and the delivery
     * thread, which would deliver their outcomes, is about to wait for the lane to reach the install's cut.
     */
    void stale(String why) {
        stale = why;
        if (why != null) {
            for (Pending p : pending.values()) {
                abandon(p, why);
            }
        }
    }

    private void abandon(Pending p, String why) {
        p.outcome().complete(system(p, new org.omg.CORBA.TRANSIENT("FTS: outcall abandoned: this replica " + why, 0,
                CompletionStatus.COMPLETED_MAYBE)));
    }

    void close() {
        relayOrb.shutdown(false);
    }

    /**
     * Whether this replica makes call {@code p} now: the replica that received the request, or, once it left the view,
     * the view's first member; after {@value #TAKEOVER_MS} ms with no outcome ordered (a designated replica that
     * stays in the view but will not call: it fell out of the order, or restarted under the same id), any replica.
     * At least once, as documented: a call may then be made more than once.
     */
    private boolean designated(Pending p) {
        if (System.nanoTime() - p.since() > TimeUnit.MILLISECONDS.toNanos(TAKEOVER_MS)) {
            return true;
        }
        List<String> members = view.get();
        return members.contains(p.origin()) ? self.equals(p.origin()) : !members.isEmpty() && self.equals(members.get(0));
    }

    private Cast.Outcome await(Pending p, String target, String operation, Jacorb.Arguments args) {
        while (true) {
            if (!p.outcome().isDone() && designated(p) && p.called().compareAndSet(false, true)) {
                Cast.Outcome made;
                try {
                    made = call(p, target, operation, args);
                } catch (SystemException e) {   // e.g. a reply that cannot be relayed: ordered like any outcome
                    made = system(p, e);
                } catch (RuntimeException e) {
                    made = system(p, new INTERNAL("FTS: outcall " + p.key() + " failed at its caller: " + e, 0,
                            CompletionStatus.COMPLETED_MAYBE));
                }
                try {
                    cast.accept(made);
                } catch (RuntimeException e) {
                    p.called().set(false);   // not ordered: try again at the next check
                    LOG.warn("{}: outcall {}'s outcome not cast: {}", self, p.key(), e.toString());
                }
            }
            try {
                return p.outcome().get(RECHECK_MS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException again) {
                // still not ordered: is this replica the one to call now?
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new org.omg.CORBA.TRANSIENT("FTS: interrupted while an outcall waited", 0,
                        CompletionStatus.COMPLETED_MAYBE);
            } catch (java.util.concurrent.ExecutionException e) {
                throw new INTERNAL("FTS: " + e.getCause());
            }
        }
    }

    /** The designated replica: the real call, with the servant's raw arguments. */
    private Cast.Outcome call(Pending p, String ior, String operation, Jacorb.Arguments args) {
        ObjectImpl target = (ObjectImpl) relayOrb.string_to_object(ior);
        LOG.debug("{}: outcall {} {} made here", self, p.key(), operation);
        while (true) {
            try {
                OutputStream out = target._request(operation, args.responseExpected());
                int start = Jacorb.replyBodyStart(out);
                if (start % 8 != args.pad()) {
                    return system(p, new MARSHAL("FTS: an outcall's request body starts at offset " + start
                            + ": only GIOP 1.2 targets are relayed", 0, CompletionStatus.COMPLETED_NO));
                }
                out.write_octet_array(args.body(), args.pad(), args.body().length - args.pad());
                InputStream reply = target._invoke(out);
                return new Cast.Outcome(p.key(), Reply.Kind.NORMAL,
                        args.responseExpected() ? Jacorb.rest(reply) : new byte[0]);
            } catch (ApplicationException e) {
                return new Cast.Outcome(p.key(), Reply.Kind.USER_EXCEPTION, Jacorb.rest(e.getInputStream()));
            } catch (RemarshalException again) {
                // a forward: the same call to where the target now is
            } catch (SystemException e) {
                return system(p, e);
            }
        }
    }

    private Cast.Outcome system(Pending p, SystemException e) {
        OutputStream out = relayOrb.create_output_stream();
        Jacorb.writeSystemException(out, e);
        return new Cast.Outcome(p.key(), Reply.Kind.SYSTEM_EXCEPTION, Jacorb.bytes(out));
    }

    /** A system exception outcome, as the servant's call raises it. */
    SystemException exception(Cast.Outcome o) {
        return Jacorb.readSystemException(relayOrb, o.body());
    }

    /** The relay's one servant: answers each servant's leg with its call's ordered outcome, at once. */
    private final class Relay extends Servant implements InvokeHandler {
        @Override
        public String[] _all_interfaces(POA poa, byte[] objectId) {
            return new String[] {"IDL:omg.org/CORBA/Object:1.0"};
        }

        @Override
        public OutputStream _invoke(String operation, InputStream in, ResponseHandler rh) {
            String key = null;
            for (org.omg.IOP.ServiceContext sc : Jacorb.serviceContexts(rh)) {
                if (sc.context_id == org.fts.ft.FtConstants.FTS_OUTCALL) {
                    key = new String(sc.context_data, StandardCharsets.UTF_8);
                }
            }
            Cast.Outcome o = key == null ? null : answers.get(key);
            if (o == null) {
                LOG.warn("{}: no outcome of outcall {} is here", self, key);
                throw new INTERNAL("FTS: no outcome of outcall " + key + " is here");
            }
            OutputStream out;
            switch (o.kind()) {
                case NORMAL -> out = rh.createReply();
                case USER_EXCEPTION -> out = rh.createExceptionReply();
                case SYSTEM_EXCEPTION -> throw exception(o);
                default -> {
                    return null;
                }
            }
            int start = Jacorb.replyBodyStart(out);
            if (start % 8 != 0) {
                throw new MARSHAL("FTS: an outcall's reply body starts at offset " + start + ", not 8-aligned", 0,
                        CompletionStatus.COMPLETED_YES);
            }
            out.write_octet_array(o.body(), 0, o.body().length);
            return out;
        }
    }
}
