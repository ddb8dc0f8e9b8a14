package org.fts.goa.behaviour;

import java.nio.ByteBuffer;

import fts_goa_test.AccountPOA;
import fts_goa_test.InsufficientFunds;
import org.fts.checkpoint.CheckpointableOperations;
import org.fts.checkpoint.InvalidState;

/**
 * A bank account; withdrawing more than the balance raises the user exception InsufficientFunds. Its state is
 * the balance, 8 bytes.
 */
public class AccountImpl extends AccountPOA implements CheckpointableOperations {
    private long balance;

    @Override
    public synchronized void deposit(long amount) {
        if (amount < 0) {
            throw new IllegalArgumentException("negative deposit " + amount);
        }
        balance += amount;
    }

    @Override
    public synchronized void withdraw(long amount) throws InsufficientFunds {
        if (amount > balance) {
            throw new InsufficientFunds(balance, amount);
        }
        balance -= amount;
    }

    @Override
    public synchronized long balance() {
        return balance;
    }

    @Override
    public synchronized byte[] get_state() {
        return ByteBuffer.allocate(8).putLong(balance).array();
    }

    @Override
    public synchronized void set_state(byte[] s) throws InvalidState {
        if (s.length != 8) {
            throw new InvalidState("an account's state is 8 bytes, not " + s.length);
        }
        balance = ByteBuffer.wrap(s).getLong();
    }
}
