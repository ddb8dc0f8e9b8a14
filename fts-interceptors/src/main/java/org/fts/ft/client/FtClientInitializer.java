package org.fts.ft.client;

import java.util.Properties;

import org.jacorb.config.Configuration;
import org.omg.CORBA.LocalObject;
import org.omg.PortableInterceptor.ORBInitInfo;
import org.omg.PortableInterceptor.ORBInitInfoPackage.DuplicateName;
import org.omg.PortableInterceptor.ORBInitializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns FTS client failover on for an ORB, with properties only:
 * {@code org.omg.PortableInterceptor.ORBInitializerClass.org.fts.ft.client.FtClientInitializer=} plus any
 * {@code fts.client.*} keys (docs/configuration.md). Registers {@link FtClientInterceptor} and sets JacORB's
 * connection retries and reply timeout from those keys, so that a dead or hung replica is left quickly.
 * A configuration error fails {@code ORB.init} with the key's name when
 * {@code jacorb.orb_initializer.fail_on_error=on}; otherwise JacORB would carry on without the interceptor,
 * so every request then fails with {@code INITIALIZE} naming the key instead.
 */
public final class FtClientInitializer extends LocalObject implements ORBInitializer {
    private static final Logger LOG = LoggerFactory.getLogger(FtClientInitializer.class);

    @Override
    public void pre_init(ORBInitInfo info) {
        Configuration jacorb = info instanceof org.jacorb.orb.portableInterceptor.ORBInitInfoImpl j
                ? j.getORB().getConfiguration() : null;
        Properties props = new Properties();
        if (jacorb != null) {
            for (String name : jacorb.getAttributeNamesWithPrefix("fts.")) {
                props.setProperty(name, jacorb.getAttribute(name, ""));
            }
        } else {
            props.putAll(System.getProperties());
        }
        org.fts.config.ConfigKeys.checkNames(LOG, props);
        ClientConfig config;
        try {
            config = ClientConfig.from(props, LOG);
        } catch (org.fts.config.ConfigException e) {
            LOG.error("FTS client not started: {}", e.getMessage());
            if (jacorb == null || jacorb.getAttributeAsBoolean("jacorb.orb_initializer.fail_on_error", false)) {
                throw e;   // ORB.init fails with INITIALIZE naming the key
            }
            // JacORB would drop a failing initializer and run without failover: fail every call instead.
            register(info, new RefusingInterceptor(e.getMessage()));
            return;
        }
        if (jacorb != null) {
            jacorb.setAttribute("jacorb.retries", Integer.toString(config.connectRetries()));
            jacorb.setAttribute("jacorb.retry_interval", Long.toString(config.connectInterval().toMillis()));
            jacorb.setAttribute("jacorb.connection.client.pending_reply_timeout",
                    Long.toString(config.replyTimeout().toMillis()));
        } else {
            LOG.warn("not a JacORB ORB: fts.client.reply_timeout and fts.client.connect_* are not applied");
        }
        register(info, new FtClientInterceptor(config));
        LOG.info("FTS client failover on: client id {}", config.clientId());
    }

    private static void register(ORBInitInfo info, org.omg.PortableInterceptor.ClientRequestInterceptor i) {
        try {
            info.add_client_request_interceptor(i);
        } catch (DuplicateName e) {
            throw new org.omg.CORBA.INITIALIZE("FTS: a client interceptor named " + e.name + " is already registered");
        }
    }

    /** Stands in for a misconfigured FTS client: every request fails, naming the bad key. */
    private static final class RefusingInterceptor extends LocalObject
            implements org.omg.PortableInterceptor.ClientRequestInterceptor {
        private final String problem;

        RefusingInterceptor(String problem) {
            this.problem = problem;
        }

        @Override
        public void send_request(org.omg.PortableInterceptor.ClientRequestInfo ri) {
            throw new org.omg.CORBA.INITIALIZE("FTS client misconfigured: " + problem, 0,
                    org.omg.CORBA.CompletionStatus.COMPLETED_NO);
        }

        @Override
        public void send_poll(org.omg.PortableInterceptor.ClientRequestInfo ri) {
        }

        @Override
        public void receive_reply(org.omg.PortableInterceptor.ClientRequestInfo ri) {
        }

        @Override
        public void receive_exception(org.omg.PortableInterceptor.ClientRequestInfo ri) {
        }

        @Override
        public void receive_other(org.omg.PortableInterceptor.ClientRequestInfo ri) {
        }

        @Override
        public String name() {
            return "fts-ft-client";
        }

        @Override
        public void destroy() {
        }
    }

    @Override
    public void post_init(ORBInitInfo info) {
        // everything happens in pre_init
    }
}
