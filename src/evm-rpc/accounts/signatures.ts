import { TypedDataEncoder, getBytes, isError, keccak256, concat, verifyMessage, type Wallet } from 'ethers';
import { ApplicationError } from '../../rpc/errors';
import type { TypedData, TypedDataField } from '../codec/typed-data';

const SIGNATURE_LENGTH = 65;

/** eth_sign / personal_sign: an EIP-191 text signature with V as 27/28. */
export function signText(wallet: Wallet, data: string): string {
  return wallet.signMessageSync(getBytes(data));
}

/** personal_ecRecover: the signer of an EIP-191 text signature, with go-ethereum's checks. */
export function recoverTextSigner(data: string, signature: string): string {
  const sig = getBytes(signature);
  if (sig.length !== SIGNATURE_LENGTH) throw new ApplicationError(`signature must be ${SIGNATURE_LENGTH} bytes long`);
  if (sig[64] !== 27 && sig[64] !== 28) throw new ApplicationError('invalid Ethereum signature (V is not 27 or 28)');
  try {
    return verifyMessage(getBytes(data), signature).toLowerCase();
  } catch (err) {
    throw new ApplicationError(isError(err, 'INVALID_ARGUMENT') ? err.shortMessage : 'invalid signature');
  }
}

/** The types `root` uses, so that ethers does not refuse types the message does not reach. */
function reachableTypes(types: Record<string, TypedDataField[]>, root: string): Record<string, TypedDataField[]> {
  const reached: Record<string, TypedDataField[]> = {};
  const visit = (type: string): void => {
    const base = type.replace(/(\[\d*\])+$/, '');
    if (reached[base] || !types[base]) return;
    reached[base] = types[base];
    for (const field of types[base]) visit(field.type);
  };
  visit(root);
  return reached;
}

/** eth_signTypedData: the EIP-712 digest of `primaryType` under the given domain, signed (V 27/28). */
export function signTypedData(wallet: Wallet, typed: TypedData): string {
  if (!typed.types[typed.primaryType]) throw new ApplicationError(`primary type ${typed.primaryType} is undefined`);
  try {
    const domainSeparator = typed.types.EIP712Domain
      ? TypedDataEncoder.from(reachableTypes(typed.types, 'EIP712Domain')).hashStruct('EIP712Domain', typed.domain)
      : TypedDataEncoder.hashDomain(typed.domain);
    const structHash = TypedDataEncoder.from(reachableTypes(typed.types, typed.primaryType)).hashStruct(typed.primaryType, typed.message);
    const digest = keccak256(concat(['0x1901', domainSeparator, structHash]));
    return wallet.signingKey.sign(digest).serialized;
  } catch (err) {
    if (err instanceof ApplicationError) throw err;
    throw new ApplicationError(isError(err, 'INVALID_ARGUMENT') ? err.shortMessage : (err as Error).message);
  }
}
