import { useMemo, type ChangeEvent } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { ListStatus } from './ListStatus';
import { cachedStates, loadStates, type UsState } from './placesData';
import { useRemoteList } from './useRemoteList';
import { cx, describedBy, hasErrors, hintId, optionString } from './widgetProps';

// The state list has a single key; these adapt the loaders to useRemoteList's keyed shape.
const ALL_STATES = 'US';
const cachedAll = (): UsState[] | undefined => cachedStates();
const loadAll = (): Promise<UsState[]> => loadStates();

/**
 * A select of the 50 US states and DC, fetched from /data/us-states.json on first use. The value
 * is the 2-letter code ("CA").
 *
 * ui:placeholder is the empty choice. ui:options: loadingText, loadErrorText, retryText.
 */
export default function UsStateWidget(props: WidgetProps) {
  const { id, value, placeholder, options, disabled, readonly, autofocus, htmlName, onChange, onBlur, onFocus } = props;
  const code = typeof value === 'string' ? value : '';
  const [list, retry] = useRemoteList(ALL_STATES, cachedAll, loadAll);
  const items = list.status === 'ready' ? list.items : undefined;

  // Memoised: the whole form re-renders on every key press, and 51 unchanged options need not be diffed.
  const optionElements = useMemo(
    () =>
      items?.map((state) => (
        <option key={state.code} value={state.code}>
          {state.name}
        </option>
      )),
    [items],
  );
  const unknownValue = code !== '' && !items?.some((state) => state.code === code);

  const invalid = hasErrors(props);
  const statusId = hintId(id);
  const emit = (event: ChangeEvent<HTMLSelectElement>) => event.target.value || undefined;

  return (
    <div className="w-select">
      <select
        id={id}
        name={htmlName || id}
        className={cx('w-select__control', invalid && 'w-select__control--invalid')}
        value={code}
        disabled={disabled || readonly || list.status !== 'ready'}
        autoFocus={autofocus}
        autoComplete={optionString(options, 'autocomplete') ?? 'address-level1'}
        aria-invalid={invalid || undefined}
        aria-busy={list.status === 'loading' || undefined}
        aria-describedby={describedBy(id, statusId)}
        onChange={(event) => onChange(emit(event))}
        onBlur={(event) => onBlur(id, emit(event))}
        onFocus={(event) => onFocus(id, emit(event))}
      >
        <option value="">{placeholder}</option>
        {/* A value the list does not hold (yet) is still shown rather than silently looking empty. */}
        {unknownValue && <option value={code}>{code}</option>}
        {optionElements}
      </select>
      <ListStatus
        id={statusId}
        list={list}
        retry={retry}
        loadingText={optionString(options, 'loadingText') ?? 'Loading states…'}
        errorText={optionString(options, 'loadErrorText') ?? 'The list of states could not be loaded.'}
        retryText={optionString(options, 'retryText') ?? 'Retry'}
      />
    </div>
  );
}
