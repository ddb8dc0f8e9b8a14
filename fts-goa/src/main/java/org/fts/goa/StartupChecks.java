package org.fts.goa;

import java.util.Properties;

import org.fts.gc.GroupConfig;
import org.omg.CORBA.ORB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What the adaptor checks and derives from its ORB and properties when it starts. */
final class StartupChecks {
    private static final Logger LOG = LoggerFactory.getLogger(StartupChecks.class);
    /** The request queue bound the samples use, and below which the adaptor warns. */
    static final int QUEUE_ADVISED = 10_000;

    private StartupChecks() {
    }

    /**
     * The foreground pool (the paper's: threads that take requests off the connections and wait for their
     * ordered execution) is the group POA's JacORB request pool: {@code jacorb.poa.thread_pool_max} threads
     * (default 20), and a queue of {@code jacorb.poa.queue_max} requests (default 100) beyond which JacORB
     * answers TRANSIENT. Both are ORB properties. A short queue is the trap: under many clients the rejected
     * requests come back redirected by FT clients, and the retries multiply the load (measured: TAB at 800
     * clients served 1073 calls/s with the default queue, 3130 with 10000; docs/performance.md).
     */
    static void foreground(ORB orb) {
        int threads = Jacorb.intSetting(orb, "jacorb.poa.thread_pool_max", 20);
        int min = Jacorb.intSetting(orb, "jacorb.poa.thread_pool_min", 5);
        int queue = Jacorb.intSetting(orb, "jacorb.poa.queue_max", 100);
        LOG.info("foreground: jacorb.poa.thread_pool_min={} jacorb.poa.thread_pool_max={} jacorb.poa.queue_max={}",
                min, threads, queue);
        if (queue < QUEUE_ADVISED) {
            LOG.warn("jacorb.poa.queue_max={}: beyond {} waiting requests this replica answers TRANSIENT, and FT clients"
                    + " retry elsewhere, which multiplies the load; servers for many clients set it in the ORB"
                    + " properties, e.g. {} as the samples do", queue, queue + threads, QUEUE_ADVISED);
        }
        if (min < threads) {
            // JacORB 3.9 (RPPoolManager, its BZ946) ends a released request thread whenever min are idle, and starts
            // a new one for the next burst: under load it creates threads all the time (profile: Thread.start on
            // the POA's RequestController, docs/performance.md).
            LOG.warn("jacorb.poa.thread_pool_min={} < jacorb.poa.thread_pool_max={}: under load JacORB ends and starts"
                    + " request threads continually; set both to the same value, as the samples do", min, threads);
        }
    }

    /**
     * The group layer's properties: the adaptor's, with {@code fts.group.size} resolved (0 means the number of
     * {@code fts.replicas}), since the group counts primaries and uniform delivery against it.
     */
    static Properties groupProperties(Properties props, GoaConfig config) {
        Properties group = new Properties();
        props.stringPropertyNames().forEach(k -> group.setProperty(k, props.getProperty(k)));
        group.setProperty(GroupConfig.GROUP_SIZE.name(), String.valueOf(config.groupSize()));
        return group;
    }

    /**
     * A replica serves plaintext IIOP or TLS only, never both: a group reference names one endpoint per
     * replica (docs/security.md). Fails with {@code INITIALIZE}, naming the JacORB key, if this one listens both
     * ways.
     */
    static void tlsOnlyOrPlain(org.fts.ft.Ior.Iiop local) {
        if (local.port() != 0 && local.sslPort() >= 0) {
            throw new org.omg.CORBA.INITIALIZE("FTS: this replica listens for plaintext IIOP (port " + local.port()
                    + ") and for TLS (port " + local.sslPort() + "); a group reference names one endpoint per "
                    + "replica: require TLS (jacorb.security.ssl.server.required_options=20) or turn it off "
                    + "(jacorb.security.support_ssl=off)");
        }
    }

    /**
     * TLS for the adaptor's own listener: null for a plaintext replica; for a TLS-only one (port 0 in its profile, a
     * TLS port in {@code TAG_SSL_SEC_TRANS}), the listener speaks TLS with JacORB's own server settings.
     *
     * @throws org.fts.config.ConfigException naming the JacORB key that is missing or not supported there
     */
    static org.fts.goa.frontend.FrontEndTls frontEndTls(org.omg.CORBA.ORB orb, org.fts.ft.Ior.Iiop local) {
        if (local.port() != 0 || local.sslPort() < 0) {
            return null;
        }
        if (!(orb instanceof org.jacorb.orb.ORB jacorb)) {
            throw new org.omg.CORBA.INITIALIZE("FTS: a TLS-only replica's own listener needs JacORB's settings");
        }
        org.jacorb.config.Configuration c = jacorb.getConfiguration();
        return org.fts.goa.frontend.FrontEndTls.fromJacorb(key -> c.getAttribute(key, null));
    }
}
