import { useEffect, useMemo, useRef, type ChangeEvent } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { ListStatus } from './ListStatus';
import { cachedCities, cityAfterStateChange, loadCities, stateCodeOf } from './placesData';
import { useRemoteList } from './useRemoteList';
import { cx, describedBy, formContextOf, hasErrors, hintId, optionString } from './widgetProps';

/**
 * A select of the cities of the state chosen in another field of the same form
 * (`ui:options.stateField`, read from `formContext.formData`). The list is fetched from
 * /data/cities/<CODE>.json when that state is chosen. When the state changes and the city is not
 * one of the new state's cities, the city is cleared.
 *
 * ui:placeholder is the empty choice. ui:options: stateField ("state"), noStateText,
 * loadingText, loadErrorText, retryText.
 */
export default function UsCityWidget(props: WidgetProps) {
  const { id, value, placeholder, options, disabled, readonly, autofocus, htmlName, onChange, onBlur, onFocus } = props;
  const city = typeof value === 'string' && value !== '' ? value : undefined;
  const stateField = optionString(options, 'stateField') ?? 'state';
  const stateCode = stateCodeOf(formContextOf(props).formData?.[stateField]);
  const [list, retry] = useRemoteList(stateCode, cachedCities, loadCities);
  const items = list.status === 'ready' ? list.items : undefined;

  // The state this widget last saw, and whether the city still has to be checked against the
  // new state's list (which may take a moment to arrive).
  const seenState = useRef(stateCode);
  const checkPending = useRef(false);
  useEffect(() => {
    if (seenState.current !== stateCode) {
      seenState.current = stateCode;
      checkPending.current = true;
    }
    if (!checkPending.current) return;
    if (stateCode !== undefined && items === undefined) return;
    checkPending.current = false;
    const next = cityAfterStateChange(city, items);
    // Only a city that was there is cleared: an empty city is left untouched, so its
    // "required" message does not appear just because a state was picked.
    if (next !== city && city !== undefined) onChange(next);
  });

  // Memoised: a state can have a thousand cities and the form re-renders on every key press.
  const optionElements = useMemo(
    () =>
      items?.map((name) => (
        <option key={name} value={name}>
          {name}
        </option>
      )),
    [items],
  );
  const known = useMemo(() => new Set(items), [items]);
  const unknownValue = city !== undefined && !known.has(city);

  const invalid = hasErrors(props);
  const statusId = hintId(id);
  const emit = (event: ChangeEvent<HTMLSelectElement>) => event.target.value || undefined;

  return (
    <div className="w-select">
      <select
        id={id}
        name={htmlName || id}
        className={cx('w-select__control', invalid && 'w-select__control--invalid')}
        value={city ?? ''}
        disabled={disabled || readonly || list.status !== 'ready'}
        autoFocus={autofocus}
        autoComplete={optionString(options, 'autocomplete') ?? 'address-level2'}
        aria-invalid={invalid || undefined}
        aria-busy={list.status === 'loading' || undefined}
        aria-describedby={describedBy(id, statusId)}
        onChange={(event) => onChange(emit(event))}
        onBlur={(event) => onBlur(id, emit(event))}
        onFocus={(event) => onFocus(id, emit(event))}
      >
        <option value="">{placeholder}</option>
        {/* A saved city the list does not hold is still shown rather than silently looking empty. */}
        {unknownValue && <option value={city}>{city}</option>}
        {optionElements}
      </select>
      <ListStatus
        id={statusId}
        list={list}
        retry={retry}
        idleText={optionString(options, 'noStateText') ?? 'Choose a state first.'}
        loadingText={optionString(options, 'loadingText') ?? 'Loading cities…'}
        errorText={optionString(options, 'loadErrorText') ?? 'The list of cities could not be loaded.'}
        retryText={optionString(options, 'retryText') ?? 'Retry'}
      />
    </div>
  );
}
