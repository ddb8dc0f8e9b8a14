package org.fts.goa.behaviour;

import java.util.Properties;

/** ORB properties for the tests' clients and replicas: JacORB, UTF-8, bounded waits. */
final class Clients {
    private Clients() {
    }

    static Properties orbDefaults() {
        Properties p = new Properties();
        p.setProperty("org.omg.CORBA.ORBClass", "org.jacorb.orb.ORB");
        p.setProperty("org.omg.CORBA.ORBSingletonClass", "org.jacorb.orb.ORBSingleton");
        p.setProperty("jacorb.native_char_codeset", "UTF8");
        p.setProperty("jacorb.log.default.verbosity", "0");
        p.setProperty("jacorb.connection.client.pending_reply_timeout", "30000");
        return p;
    }

    /** {@link #orbDefaults()} with FTS client failover on (the only change an FT client makes). */
    static Properties ftDefaults() {
        Properties p = orbDefaults();
        p.setProperty("org.omg.PortableInterceptor.ORBInitializerClass.org.fts.ft.client.FtClientInitializer", "");
        p.setProperty("jacorb.orb_initializer.fail_on_error", "on");   // a bad fts.client.* key fails ORB.init
        return p;
    }
}
