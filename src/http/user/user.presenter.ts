import type { Caller, User } from '../../core/accounts/account.js';
import type { PresentedCaller, PresentedUser } from './user.schema.js';

export function presentUser(user: User): PresentedUser {
  return { id: user.providerUserId, name: user.name, avatar: user.avatarUrl, provider: user.provider };
}

export function presentCaller(caller: Caller): PresentedCaller {
  return { ...presentUser(caller.user), role: caller.role };
}
