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
 * A configuration error fails {@code ORB.init} with the key's name.
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
        ClientConfig config = ClientConfig.from(props, LOG);
        if (jacorb != null) {
            jacorb.setAttribute("jacorb.retries", Integer.toString(config.connectRetries()));
            jacorb.setAttribute("jacorb.retry_interval", Long.toString(config.connectInterval().toMillis()));
            jacorb.setAttribute("jacorb.connection.client.pending_reply_timeout",
                    Long.toString(config.replyTimeout().toMillis()));
        } else {
            LOG.warn("not a JacORB ORB: fts.client.reply_timeout and fts.client.connect_* are not applied");
        }
        try {
            info.add_client_request_interceptor(new FtClientInterceptor(config));
        } catch (DuplicateName e) {
            throw new org.omg.CORBA.INITIALIZE("FTS: a client interceptor named " + e.name + " is already registered");
        }
        LOG.info("FTS client failover on: client id {}", config.clientId());
    }

    @Override
    public void post_init(ORBInitInfo info) {
        // everything happens in pre_init
    }
}
