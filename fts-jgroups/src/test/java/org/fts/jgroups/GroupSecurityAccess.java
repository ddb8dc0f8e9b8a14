package org.fts.jgroups;

import java.util.Properties;

import javax.crypto.SecretKey;

/** Test access to {@link GroupSecurity#groupKey}. */
public final class GroupSecurityAccess {
    private GroupSecurityAccess() {
    }

    public static SecretKey groupKey(Properties config) {
        return GroupSecurity.groupKey(config);
    }
}
