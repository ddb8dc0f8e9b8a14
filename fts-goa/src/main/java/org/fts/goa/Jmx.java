package org.fts.goa;

import java.lang.management.ManagementFactory;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The adaptor's MBeans on the platform MBean server: registered by name, replacing a stale one, never fatal. */
final class Jmx {
    private static final Logger LOG = LoggerFactory.getLogger(Jmx.class);

    private Jmx() {
    }

    /** {@code org.fts:type=<type>,group="<group>",member="<member>"}. */
    static ObjectName name(String type, String group, String member) throws JMException {
        return new ObjectName("org.fts:type=" + type + ",group=" + ObjectName.quote(group) + ",member="
                + ObjectName.quote(member));
    }

    /** Registers {@code bean} as {@code org.fts:type=<type>,…}; returns its name, or null if that failed (logged). */
    static ObjectName register(Object bean, String type, String group, String member) {
        try {
            ObjectName n = name(type, group, member);
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (server.isRegistered(n)) {
                server.unregisterMBean(n);   // a replica of the same name in this JVM before (tests)
            }
            server.registerMBean(bean, n);
            return n;
        } catch (JMException e) {
            LOG.warn("{} of replica {} not registered over JMX: {}", type, member, e.toString());
            return null;
        }
    }

    /** Unregisters {@code name} if not null; a bean already gone is fine. */
    static void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException e) {
            LOG.debug("MBean {} already gone: {}", name, e.toString());
        }
    }
}
