package org.fts.goa.giop;

import java.lang.management.ManagementFactory;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listener's intake budget on the platform MBean server, {@code org.fts:type=Intake,group=<group>,member=<id>,
 * port=<port>} ({@link IntakeBudgetMXBean}): the adaptor's own listener's, or JacORB's with the GIOP guard. The port
 * tells apart the listeners of one process. Never fatal: a replica serves without it.
 */
public final class IntakeJmx {
    private static final Logger LOG = LoggerFactory.getLogger(IntakeJmx.class);

    private IntakeJmx() {
    }

    /** Registers {@code bean}, replacing a stale one of that name (a listener restarted on its port); null if not. */
    public static synchronized ObjectName register(String group, String member, int port, IntakeBudgetMXBean bean) {
        try {
            MBeanServer mbs = ManagementFactory.getPlatformMBeanServer();
            ObjectName name = new ObjectName("org.fts:type=Intake,group=" + ObjectName.quote(group) + ",member="
                    + ObjectName.quote(member) + ",port=" + port);
            if (mbs.isRegistered(name)) {
                mbs.unregisterMBean(name);
            }
            mbs.registerMBean(new StandardMBean(bean, IntakeBudgetMXBean.class, true), name);
            return name;
        } catch (JMException | RuntimeException e) {
            LOG.warn("the intake budget is not on JMX: {}", e.toString());
            return null;
        }
    }

    /** Takes {@code name} off the server (null: nothing). */
    public static synchronized void unregister(ObjectName name) {
        if (name == null) {
            return;
        }
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(name);
        } catch (JMException | RuntimeException e) {
            LOG.debug("intake MBean {} already gone: {}", name, e.toString());
        }
    }
}
