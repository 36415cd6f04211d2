import type { Caller, User } from '../../core/account.js';

export function presentUser(user: User) {
  return { id: user.providerUserId, name: user.name, avatar: user.avatarUrl, provider: user.provider };
}

export function presentCaller(caller: Caller) {
  return { ...presentUser(caller.user), role: caller.role };
}
